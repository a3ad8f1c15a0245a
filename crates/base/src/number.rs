//! Numbers as the article, its tables and its figures print them, so a figure is printed the same
//! way everywhere: percentages, percentage points, grouped throughputs and SVG coordinates.

use crate::text::NBSP;

/// A fraction as a percentage with two decimals, e.g. `85.36 %` for 0.8536 (any value that
/// converts to `f64`, such as a ratio), the number joined to `%` by a no-break space.
pub fn percent(fraction: impl Into<f64>) -> String {
    format!("{:.2}{NBSP}%", fraction.into() * 100.0)
}

/// A percentage given in percent (not as a fraction), with two decimals: `14.64 %`.
pub fn percent_value(pct: f64) -> String {
    format!("{pct:.2}{NBSP}%")
}

/// Percentage points with two decimals, e.g. `12.51`.
pub fn points(pp: f64) -> String {
    format!("{pp:.2}")
}

/// A throughput with thousands separators and the given decimals, e.g. `70,132.3`.
pub fn grouped(x: f64, decimals: usize) -> String {
    let s = format!("{:.*}", decimals, x.abs());
    let (int, frac) = s
        .split_once('.')
        .map_or((s.as_str(), None), |(i, f)| (i, Some(f)));
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    if x < 0.0 {
        out.insert(0, '-');
    }
    out
}

/// A throughput as the summary prints it, grouped: keeps the digits the source gave.
pub fn tokens(x: f64) -> String {
    let shortest = format!("{x}");
    let decimals = shortest.split_once('.').map_or(0, |(_, f)| f.len());
    grouped(x, decimals.min(3))
}

/// Rounds to one decimal, for SVG coordinates.
pub fn coord(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// The filter of a placeholder that shows its value with every number rounded to whole units
/// (`{{name|whole}}`): the prose writes it, the build's check of rendered values reads it back.
pub const WHOLE: &str = "|whole";

/// A placeholder's name without its [`WHOLE`] filter (and the spaces before it), and whether
/// it had one.
pub fn without_whole(name: &str) -> (&str, bool) {
    match name.strip_suffix(WHOLE) {
        Some(base) => (base.trim_end(), true),
        None => (name, false),
    }
}

/// `value` as a placeholder with the [`WHOLE`] filter or without it shows it.
pub fn shown(value: &str, whole: bool) -> String {
    if whole {
        rounded_in_text(value)
    } else {
        value.to_string()
    }
}

/// `text` with every number in it rounded to whole units (`85.36 %` → `85 %`, `1,234.5` →
/// `1,235`), for prose that should not claim more precision than one run allows. A run of digits
/// that is part of a name (after a letter, a hyphen or a dot: `llama3.1-8b`, `gpt-oss-120b`,
/// `v6.1`) is left as it is.
pub(crate) fn rounded_in_text(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let starts_number = c.is_ascii_digit()
            && i.checked_sub(1).is_none_or(|p| {
                !(chars[p].is_alphanumeric() || matches!(chars[p], '-' | '.' | '_' | ','))
            });
        if !starts_number {
            out.push(c);
            i += 1;
            continue;
        }
        // The number: digits with thousands commas, then a fraction.
        let start = i;
        while i < chars.len()
            && (chars[i].is_ascii_digit()
                || (chars[i] == ','
                    && chars.get(i + 1).is_some_and(char::is_ascii_digit)
                    && chars.get(i + 4).is_none_or(|c| !c.is_ascii_digit())))
        {
            i += 1;
        }
        if chars.get(i) == Some(&'.') && chars.get(i + 1).is_some_and(char::is_ascii_digit) {
            i += 1;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
        }
        let written: String = chars[start..i].iter().collect();
        // Part of a name after all (`8b`, `70b-99.9`): kept as written.
        let in_name = chars
            .get(i)
            .is_some_and(|c| c.is_alphabetic() || matches!(c, '-' | '_'));
        match written.replace(',', "").parse::<f64>() {
            Ok(x) if !in_name && written.contains('.') => {
                let grouped_input = written.contains(',') || x >= 10_000.0;
                out.push_str(&if grouped_input {
                    grouped(x, 0)
                } else {
                    format!("{x:.0}")
                });
            }
            _ => out.push_str(&written),
        }
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn numbers_in_a_text_round_to_whole_units_and_names_keep_theirs() {
        assert_eq!(rounded_in_text("85.36\u{a0}%"), "85\u{a0}%");
        assert_eq!(rounded_in_text("12.51"), "13");
        assert_eq!(
            rounded_in_text("from 86.87 % to 97.81 %"),
            "from 87 % to 98 %"
        );
        assert_eq!(rounded_in_text("70,132.6 tokens/s"), "70,133 tokens/s");
        assert_eq!(rounded_in_text("0.4 points"), "0 points");
        // Whole numbers, and digits in names, stay as written.
        assert_eq!(
            rounded_in_text("all 23 systems, 1,448 rows"),
            "all 23 systems, 1,448 rows"
        );
        assert_eq!(
            rounded_in_text("llama3.1-8b, gpt-oss-120b, llama2-70b-99.9 and v6.1"),
            "llama3.1-8b, gpt-oss-120b, llama2-70b-99.9 and v6.1"
        );
        assert_eq!(
            rounded_in_text("B300-SXM-270GBx8 at 16.16"),
            "B300-SXM-270GBx8 at 16"
        );
    }
    use super::*;

    #[test]
    fn grouping_and_percentages() {
        assert_eq!(grouped(1234567.891, 1), "1,234,567.9");
        assert_eq!(grouped(999.0, 0), "999");
        assert_eq!(grouped(-1000.0, 0), "-1,000");
        assert_eq!(tokens(70132.3), "70,132.3");
        assert_eq!(tokens(106637.0), "106,637");
        assert_eq!(percent(0.853640904), "85.36\u{a0}%");
        assert_eq!(percent(1.0172490073673766), "101.72\u{a0}%");
        assert_eq!(points(12.505543608754962), "12.51");
    }
}
