//! Text for the formats the build writes into: error lines that stay one line and show what they
//! quote (excerpts, quotes, escapes of invisible characters, paths), HTML and BibTeX escapes (with
//! no-break spaces before units and break points in long names), and URL paths.

/// At most `max` characters of `s` for an error line; a longer value is cut and its full length
/// given, so a 40 MB field never ends up on a terminal.
pub fn excerpt(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((cut, _)) => format!("{}… ({} bytes in all)", &s[..cut], s.len()),
    }
}

/// `text` in Unicode's composed normal form (NFC): two texts that print alike as one letter and
/// a combining mark, or as the composed letter, become equal.
pub fn nfc(text: &str) -> String {
    unicode_normalization::UnicodeNormalization::nfc(text).collect()
}

/// True for a character that a terminal would not show as itself: control characters (a
/// newline or an ESC could forge a second line or recolour the screen), the bidirectional
/// controls that reorder what is shown (U+202E and its kin), and the invisible format characters
/// (zero-width space and joiners, the byte-order mark, the soft hyphen).
pub fn is_invisible(c: char) -> bool {
    // Noncharacters (U+FDD0..U+FDEF and the last two of every plane): YAML and XML readers
    // refuse them, and a page shows nothing or a replacement mark.
    let noncharacter = matches!(c, '\u{fdd0}'..='\u{fdef}') || (c as u32) & 0xfffe == 0xfffe;
    c.is_control()
        || noncharacter
        || matches!(
            c,
            '\u{00ad}'
                | '\u{034f}'
                | '\u{061c}'
                | '\u{115f}'
                | '\u{1160}'
                | '\u{17b4}'
                | '\u{17b5}'
                | '\u{180b}'..='\u{180f}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{3164}'
                | '\u{fe00}'..='\u{fe0f}'
                | '\u{feff}'
                | '\u{ffa0}'
                | '\u{fff0}'..='\u{fffb}'
                | '\u{e0000}'..='\u{e0fff}'
        )
}

/// `s` for an error line: every character [`is_invisible`] finds written as an escape
/// (`\n`, `\t`, `\r`, else `\u{202e}`), so one line stays one line and what it quotes is
/// seen as it is.
pub fn escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_invisible(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// A name or value quoted for an error line: at most `max` characters of it ([`excerpt`]),
/// between double quotes, with `"` and `\` escaped and every invisible character written as an
/// escape ([`escaped`]); combining marks are escaped too, so `é` and `e` + U+0301 (NFC and NFD)
/// are told apart.
pub fn quoted(s: &str, max: usize) -> String {
    let (head, tail) = match s.char_indices().nth(max) {
        None => (s, String::new()),
        Some((cut, _)) => (&s[..cut], format!("… ({} bytes in all)", s.len())),
    };
    let mut out = String::with_capacity(head.len() + 2);
    out.push('"');
    for c in head.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            // A combining mark, or a space other than ASCII's (a no-break space), which would
            // print like the text without it or with a plain space.
            c if is_combining(c) || (c.is_whitespace() && !c.is_ascii()) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => out.push_str(&escaped(c.encode_utf8(&mut [0; 4]))),
        }
    }
    out.push('"');
    out.push_str(&tail);
    out
}

/// True for the combining marks that Unicode normalisation composes or decomposes (the blocks
/// of combining diacritical marks), which would otherwise print on the letter before them.
fn is_combining(c: char) -> bool {
    matches!(
        c,
        '\u{0300}'..='\u{036f}'
            | '\u{1ab0}'..='\u{1aff}'
            | '\u{1dc0}'..='\u{1dff}'
            | '\u{20d0}'..='\u{20ff}'
            | '\u{fe20}'..='\u{fe2f}'
            | '\u{3099}'
            | '\u{309a}'
    )
}

/// The first character of `text` that [`is_invisible`] finds, other than tab, line feed and
/// carriage return (which text files hold as whitespace), with its index in characters.
pub fn first_invisible(text: &str) -> Option<(usize, char)> {
    // Most characters are printable ASCII, which is never invisible: only the others are looked
    // up.
    text.chars().enumerate().find(|&(_, c)| {
        !(' '..='~').contains(&c) && is_invisible(c) && !matches!(c, '\t' | '\n' | '\r')
    })
}

/// The script of a letter, for the look-alike check: Latin, or one of the scripts whose letters
/// pass for Latin ones (Cyrillic `а`, Greek `ο`, Armenian `օ`, Cherokee `Ꭺ`, fullwidth `Ａ`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Script {
    Latin,
    LookAlike(&'static str),
    Other,
}

fn script(c: char) -> Script {
    match c {
        'a'..='z' | 'A'..='Z' | '\u{c0}'..='\u{24f}' | '\u{1e00}'..='\u{1eff}' => Script::Latin,
        '\u{370}'..='\u{3ff}' | '\u{1f00}'..='\u{1fff}' => Script::LookAlike("Greek"),
        '\u{400}'..='\u{52f}' | '\u{1c80}'..='\u{1c8f}' | '\u{a640}'..='\u{a69f}' => {
            Script::LookAlike("Cyrillic")
        }
        '\u{530}'..='\u{58f}' => Script::LookAlike("Armenian"),
        '\u{13a0}'..='\u{13ff}' | '\u{ab70}'..='\u{abbf}' => Script::LookAlike("Cherokee"),
        '\u{ff01}'..='\u{ff5e}' => Script::LookAlike("fullwidth"),
        _ => Script::Other,
    }
}

/// `text` as it prints: every Unicode space an ASCII space, and none at either end.
pub fn spaces_folded(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect::<String>()
        .trim_matches(' ')
        .to_string()
}

/// Why `text` could print like another text while differing from it, if it could: an invisible
/// character (a zero-width space, U+3164, a tag character), or a word that mixes Latin letters
/// with letters of a script that passes for Latin (`NVIDIА` with a Cyrillic `А`). Tab, line feed
/// and carriage return are left to the caller, and so are spaces: a no-break space, or a space at
/// either end, prints like an ASCII space or none only beside a text that has them, so the
/// summary loader refuses such twins ([`spaces_folded`]) and keeps a text without one as written
/// (v5.1's names hold narrow no-break spaces).
pub fn lookalike(text: &str) -> Option<String> {
    if let Some((at, c)) = first_invisible(text) {
        return Some(format!(
            "invisible character U+{:04X} at character {at}; two names that differ only in it print alike, so it is refused",
            c as u32
        ));
    }
    // An ASCII text has no letter of another script.
    if text.is_ascii() {
        return None;
    }
    let mut at = 0;
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        let latin = word.chars().any(|c| script(c) == Script::Latin);
        let other = word.char_indices().find_map(|(i, c)| match script(c) {
            Script::LookAlike(name) => Some((i, c, name)),
            _ => None,
        });
        if let (true, Some((i, c, name))) = (latin, other) {
            return Some(format!(
                "word {} mixes Latin letters with a {name} one (U+{:04X} at character {}); it would pass for another name, so it is refused",
                quoted(word, 100),
                c as u32,
                at + word[..i].chars().count()
            ));
        }
        at += word.chars().count() + 1;
    }
    None
}

/// A path for an error line, unquoted: as [`escaped`], at most 300 characters.
pub fn path(p: &std::path::Path) -> String {
    escaped(&excerpt(
        &bytes_shown(p.as_os_str().as_encoded_bytes()),
        300,
    ))
}

/// `bytes` as text, each byte that is not part of UTF-8 written `\xFF`, so a name that is not
/// UTF-8 is shown as it is, not as another name (`�` would stand for any invalid byte).
pub(crate) fn bytes_shown(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// The no-break space that joins a number to its unit (`85.36 %`, `80 ms`), so a line never
/// breaks between them.
pub const NBSP: char = '\u{a0}';

/// The units the prose writes after a number, joined to it by [`NBSP`].
pub const UNITS: &[&str] = &["%", "tokens/s", "ms", "percentage points", "points", "MB"];

/// `text` with the space before each unit of [`UNITS`] that follows a digit made a no-break
/// space. When `after_value` is set, `text` follows a rendered number, so a unit at its very
/// start is joined too.
pub fn join_units(text: &str, after_value: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut prev: Option<char> = None;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let number_before = prev.map_or(after_value, |p| p.is_ascii_digit());
        if c == ' ' && number_before {
            let after = &rest[1..];
            let unit = UNITS.iter().find(|u| {
                after.starts_with(**u)
                    && after[u.len()..]
                        .chars()
                        .next()
                        .is_none_or(|n| !n.is_alphanumeric())
            });
            if unit.is_some() {
                out.push(NBSP);
                prev = Some(NBSP);
                rest = after;
                continue;
            }
        }
        out.push(c);
        prev = Some(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// `s` escaped for HTML text and attribute values.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `s` escaped for HTML, with a line-break opportunity (`<wbr>`) after a `_`, `-`, `/` or `,`
/// that ends a run of at least [`BREAK_RUN`] characters without one, so a long name such as
/// `PRIMERGY_CDI_RTX_PRO_6000_PCIE_96GBx8` can wrap in a narrow table cell instead of widening
/// the page, while short names (and the page's element count) stay as they are.
pub fn breakable(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    let chars: Vec<char> = s.chars().collect();
    let mut run = 0;
    for (i, &c) in chars.iter().enumerate() {
        out.push_str(&html_escape(c.encode_utf8(&mut [0u8; 4])));
        if c.is_whitespace() {
            run = 0;
            continue;
        }
        run += 1;
        let more = chars.get(i + 1).is_some_and(|n| !n.is_whitespace());
        if matches!(c, '_' | '-' | '/' | ',') && run >= BREAK_RUN && more {
            out.push_str("<wbr>");
            run = 0;
        }
    }
    out
}

/// `s` escaped for HTML and kept on one line when it is short (a model label such as
/// `llama2-70b-99.9`, which a browser would otherwise break after a hyphen); a longer one is
/// [`breakable`].
pub fn short_unbroken(s: &str) -> String {
    if s.chars().count() <= SHORT_NAME {
        format!("<span class=\"token\">{}</span>", html_escape(s))
    } else {
        breakable(s)
    }
}

/// The most characters a name [`short_unbroken`] keeps on one line may have.
pub(crate) const SHORT_NAME: usize = 20;

/// The fewest characters [`breakable`] leaves between two of the breaks it adds.
pub const BREAK_RUN: usize = 8;

/// A value for a BibTeX field: TeX's special characters escaped.
pub fn bibtex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '^' => out.push_str("\\^{}"),
            '~' => out.push_str("\\~{}"),
            '{' | '}' | '%' | '&' | '$' | '#' | '_' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A path for a URL: each `/`-separated segment percent-encoded except for the characters URLs
/// leave as they are (`A-Z a-z 0-9 - . _ ~`), so a folder named `Naeem Khoshnevis` links right.
pub fn url_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The first 12 digits of a commit hash, as commits are shown to readers.
pub fn short_commit(commit: &str) -> String {
    commit.chars().take(12).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_joined_to_their_numbers() {
        assert_eq!(
            join_units(
                "Server 59,867.8 against 70,132.3 tokens/s, 12 ms and 3 %.",
                false
            ),
            "Server 59,867.8 against 70,132.3\u{a0}tokens/s, 12\u{a0}ms and 3\u{a0}%."
        );
        // After a rendered number, a unit at the start of the text is joined too.
        assert_eq!(join_units(" tokens/s (rows", true), "\u{a0}tokens/s (rows");
        assert_eq!(join_units(" tokens/s (rows", false), " tokens/s (rows");
        // Not a unit: a word that merely starts like one, or a unit after a word.
        assert_eq!(join_units("4 msgs and the ms", false), "4 msgs and the ms");
        assert_eq!(
            join_units("12.51 percentage points", false),
            "12.51\u{a0}percentage points"
        );
    }

    #[test]
    fn short_names_stay_whole_and_long_ones_break() {
        assert_eq!(
            short_unbroken("llama2-70b-99.9"),
            "<span class=\"token\">llama2-70b-99.9</span>"
        );
        assert_eq!(
            short_unbroken("a<b>-c"),
            "<span class=\"token\">a&lt;b&gt;-c</span>"
        );
        let long = "llama3_1-8b-interactive-extra";
        assert_eq!(short_unbroken(long), breakable(long));
    }

    #[test]
    fn breakable_names_escape_and_offer_breaks() {
        // A break after the separator that ends 8 or more characters without one.
        assert_eq!(
            breakable("Quanta_Cloud_Technology"),
            "Quanta_Cloud_<wbr>Technology"
        );
        assert_eq!(
            breakable("PRIMERGY_CDI_RTX_PRO_6000_PCIE_96GBx8,"),
            "PRIMERGY_<wbr>CDI_RTX_<wbr>PRO_6000_<wbr>PCIE_96GBx8,"
        );
        // Short words, a separator before a space or at the end: nothing added; markup escaped.
        assert_eq!(breakable("a/b, c-d"), "a/b, c-d");
        assert_eq!(
            breakable("<b>abcdefgh/ijk</b>"),
            "&lt;b&gt;abcdefgh/<wbr>ijk&lt;/b&gt;"
        );
    }

    #[test]
    fn url_paths_encode_all_but_unreserved_characters() {
        assert_eq!(
            url_path("closed/NVIDIA/a_b-c.d~e"),
            "closed/NVIDIA/a_b-c.d~e"
        );
        assert_eq!(
            url_path("closed/Naeem Khoshnevis/x#y?z%é"),
            "closed/Naeem%20Khoshnevis/x%23y%3Fz%25%C3%A9"
        );
    }

    #[test]
    fn invisible_characters_and_combining_marks_are_shown_as_escapes() {
        assert_eq!(escaped("a\nerror: b\u{1b}[31m"), "a\\nerror: b\\u{1b}[31m");
        assert_eq!(escaped("x\u{202e}y\u{200b}z é"), "x\\u{202e}y\\u{200b}z é");
        // Noncharacters, which YAML and XML readers refuse.
        for c in [
            '\u{fdd0}',
            '\u{fffe}',
            '\u{ffff}',
            '\u{1fffe}',
            '\u{10ffff}',
        ] {
            assert!(is_invisible(c), "{c:?}");
        }
        assert!(!is_invisible('\u{fffd}'));
        assert_eq!(quoted("B300", 10), "\"B300\"");
        assert_eq!(quoted("a\"b\\c", 10), "\"a\\\"b\\\\c\"");
        // NFC and NFD print apart.
        assert_eq!(quoted("\u{e9}", 10), "\"\u{e9}\"");
        assert_eq!(quoted("e\u{301}", 10), "\"e\\u{301}\"");
        assert_eq!(quoted("abcdef", 3), "\"abc\"… (6 bytes in all)");
    }

    #[test]
    fn excerpts_are_bounded() {
        assert_eq!(excerpt("short", 200), "short");
        let long = "é".repeat(300);
        let e = excerpt(&long, 200);
        assert_eq!(e.chars().filter(|&c| c == 'é').count(), 200);
        assert!(e.ends_with("… (600 bytes in all)"), "{e}");
    }

    #[test]
    fn the_ascii_shortcut_finds_what_the_character_walk_finds() {
        // Every ASCII character alone, then beside letters: the first invisible one is the one
        // the walk over characters finds, and no ASCII text mixes scripts.
        for b in 0u8..=127 {
            let c = char::from(b);
            for text in [c.to_string(), format!("ab{c}cd{c}")] {
                let walked = text
                    .chars()
                    .enumerate()
                    .find(|&(_, c)| is_invisible(c) && !matches!(c, '\t' | '\n' | '\r'));
                assert_eq!(first_invisible(&text), walked, "{text:?}");
                assert_eq!(lookalike(&text).is_some(), walked.is_some(), "{text:?}");
            }
        }
    }

    /// Each kind of look-alike is found, with its place; the names of the real summary (ASCII
    /// and an em dash) pass.
    #[test]
    fn lookalike_names_are_found_and_plain_ones_pass() {
        for plain in [
            "NVIDIA DGX B300",
            "gpt-oss-120b",
            "Dell PowerEdge XE9680 — 8x H200",
            "",
        ] {
            assert_eq!(lookalike(plain), None, "{plain}");
        }
        let cases = [
            ("NVIDI\u{410} B300", "U+0410 at character 5", "Cyrillic"),
            ("\u{3bf}pen", "U+03BF at character 0", "Greek"),
            ("DGX\u{200b}B300", "U+200B at character 3", "invisible"),
            ("\u{3164}", "U+3164 at character 0", "invisible"),
            ("a\u{e0041}", "U+E0041 at character 1", "invisible"),
            ("x \u{ff21}MD", "U+FF21 at character 2", "fullwidth"),
        ];
        for (text, place, kind) in cases {
            let why = lookalike(text).unwrap_or_else(|| panic!("{text:?} passed"));
            assert!(
                why.contains(place) || why.starts_with(place),
                "{text:?}: {why}"
            );
            assert!(why.contains(kind), "{text:?}: {why}");
        }
        // A word of another script alone, with no Latin letter in it, is a name, not a disguise.
        assert_eq!(lookalike("Ростелеком AI"), None);
        // Spaces are the loader's to judge, beside the other rows.
        assert_eq!(lookalike(" B300 "), None);
        assert_eq!(lookalike("Intel\u{202f}Xeon"), None);
        assert_eq!(spaces_folded(" Intel\u{202f}Xeon\u{a0}"), "Intel Xeon");
    }

    /// A byte that is not UTF-8 is shown as `\xff`, and valid text as it is.
    #[test]
    fn bytes_that_are_not_utf8_are_shown_as_escapes() {
        assert_eq!(bytes_shown(b"dist\xff"), "dist\\xff");
        assert_eq!(bytes_shown("caf\u{e9}/a".as_bytes()), "caf\u{e9}/a");
        assert_eq!(bytes_shown(b"\xc3(x"), "\\xc3(x");
    }
}
