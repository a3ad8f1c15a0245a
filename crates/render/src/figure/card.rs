//! The page's social card: figure 3 as a 1200 × 630 PNG (the size link previews use), with the
//! title and the byline, drawn at build time from the same bars as the figure. Text is drawn
//! with Noto Sans (the `ttf-noto-sans` crate) through `ttf-parser`'s glyph outlines and
//! `ab_glyph_rasterizer`'s coverage, built with its `libm` feature so every CPU takes the same
//! scalar path; shapes are whole pixels and blending is integer, so the bytes do not depend on
//! the machine. The PNG is written here (a few chunks and a zlib stream through `flate2`, which
//! the bundle's zip already uses).

use std::io::Write;

use ab_glyph_rasterizer::{point, Point, Rasterizer};
use askama::Template;

use ratios_base::error::{Error, Result};
use ratios_model::analysis::Analysis;
use ratios_model::highlight::Highlights;
use ratios_model::project::config::ArticleConfig;

/// The card's file, as errors name it.
const OUTPUT: &str = ratios_base::layout::OutputFile::Card.path();

/// The card's size in pixels: what link previews (Open Graph, X's large card) expect.
pub const WIDTH: u32 = 1200;
/// The card's height in pixels, for the 1.91:1 ratio of those previews.
pub const HEIGHT: u32 = 630;

/// Colours of the light scheme of the figures (`templates/svg-rules.css`).
const BACKGROUND: Rgb = Rgb(0xff, 0xff, 0xff);
const TEXT: Rgb = Rgb(0x1f, 0x23, 0x28);
const MUTED: Rgb = Rgb(0x57, 0x60, 0x6a);
const GRID: Rgb = Rgb(0xd0, 0xd7, 0xde);
const REFERENCE: Rgb = Rgb(0xcf, 0x22, 0x2e);
/// Each benchmark's bar, by its place in the analysis's order (lowest median first), as figure 3
/// draws them: `.sr-k0` to `.sr-k3` of `templates/svg-rules.css`.
pub(crate) const BENCHMARK_COLOURS: [Rgb; 4] = [
    Rgb(0xbf, 0x87, 0x00),
    Rgb(0x1b, 0x7c, 0x83),
    Rgb(0x09, 0x69, 0xda),
    Rgb(0x82, 0x50, 0xdf),
];

/// A colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rgb(pub u8, pub u8, pub u8);

/// The words the card prints besides the bars, worded by `templates/text/card.txt` from the
/// page's settings and the results: one line each for the title, the subtitle, the byline and
/// the note.
#[derive(Template)]
#[template(path = "text/card.txt")]
struct Words<'a> {
    config: &'a ArticleConfig,
    round: &'a str,
    host: &'a str,
    shown: usize,
    pairs: usize,
}

/// An RGB image being drawn.
struct Canvas {
    pixels: Vec<u8>,
}

/// A font at one size.
struct Font<'a> {
    face: ttf_parser::Face<'a>,
    px: f32,
}

impl<'a> Font<'a> {
    fn new(data: &'a [u8], px: f32) -> Result<Font<'a>> {
        let face = ttf_parser::Face::parse(data, 0).map_err(|e| Error::Output {
            path: OUTPUT.into(),
            message: format!("the font does not parse: {e}"),
        })?;
        Ok(Font { face, px })
    }

    fn scale(&self) -> f32 {
        self.px / f32::from(self.face.units_per_em())
    }

    /// The glyph of `c`, or of a space when the font has none.
    fn glyph(&self, c: char) -> Option<ttf_parser::GlyphId> {
        self.face
            .glyph_index(c)
            .or_else(|| self.face.glyph_index(' '))
    }

    /// How far `glyph` moves the pen, in pixels.
    fn advance(&self, glyph: ttf_parser::GlyphId) -> f32 {
        self.face
            .glyph_hor_advance(glyph)
            .map_or(0.0, |a| f32::from(a) * self.scale())
    }

    /// The width of `text` in pixels.
    fn width(&self, text: &str) -> f32 {
        text.chars()
            .filter_map(|c| self.glyph(c))
            .map(|g| self.advance(g))
            .sum()
    }
}

/// Collects a glyph's outline into the rasterizer, placed at `(dx, dy)` in its box.
struct Outline<'r> {
    raster: &'r mut Rasterizer,
    scale: f32,
    dx: f32,
    dy: f32,
    start: Point,
    last: Point,
}

impl Outline<'_> {
    fn at(&self, x: f32, y: f32) -> Point {
        point(self.dx + x * self.scale, self.dy - y * self.scale)
    }
}

impl ttf_parser::OutlineBuilder for Outline<'_> {
    fn move_to(&mut self, x: f32, y: f32) {
        self.start = self.at(x, y);
        self.last = self.start;
    }
    fn line_to(&mut self, x: f32, y: f32) {
        let p = self.at(x, y);
        self.raster.draw_line(self.last, p);
        self.last = p;
    }
    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        let p = self.at(x, y);
        self.raster.draw_quad(self.last, self.at(x1, y1), p);
        self.last = p;
    }
    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        let p = self.at(x, y);
        let (c1, c2) = (self.at(x1, y1), self.at(x2, y2));
        self.raster.draw_cubic(self.last, c1, c2, p);
        self.last = p;
    }
    fn close(&mut self) {
        if self.last != self.start {
            self.raster.draw_line(self.last, self.start);
        }
        self.last = self.start;
    }
}

/// How a text is placed against its x.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Anchor {
    Start,
    End,
}

impl Canvas {
    fn new() -> Canvas {
        let pixels = [BACKGROUND.0, BACKGROUND.1, BACKGROUND.2].repeat((WIDTH * HEIGHT) as usize);
        Canvas { pixels }
    }

    /// Blends `colour` into the pixel at `(x, y)` with coverage `alpha` (0-255), in integers.
    fn blend(&mut self, x: i64, y: i64, colour: Rgb, alpha: u32) {
        if x < 0 || y < 0 || x >= i64::from(WIDTH) || y >= i64::from(HEIGHT) || alpha == 0 {
            return;
        }
        let at = ((y as u32 * WIDTH + x as u32) * 3) as usize;
        for (k, c) in [colour.0, colour.1, colour.2].into_iter().enumerate() {
            let under = u32::from(self.pixels[at + k]);
            self.pixels[at + k] =
                ((under * (255 - alpha) + u32::from(c) * alpha + 127) / 255) as u8;
        }
    }

    /// Fills the whole-pixel rectangle from `(x0, y0)` to `(x1, y1)`, exclusive.
    /// Every pixel takes the colour itself, as [`Canvas::blend`] at full coverage gives.
    fn rect(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, colour: Rgb) {
        let (x0, x1) = (x0.clamp(0, WIDTH.into()), x1.clamp(0, WIDTH.into()));
        let (y0, y1) = (y0.clamp(0, HEIGHT.into()), y1.clamp(0, HEIGHT.into()));
        if x0 >= x1 {
            return;
        }
        let rgb = [colour.0, colour.1, colour.2];
        for y in y0..y1 {
            let row = (y * i64::from(WIDTH)) as usize * 3;
            self.pixels[row + x0 as usize * 3..row + x1 as usize * 3]
                .chunks_exact_mut(3)
                .for_each(|p| p.copy_from_slice(&rgb));
        }
    }

    /// A vertical line of `width` pixels at `x`, dashed (`dash` on, `dash` off) when `dash` is
    /// not 0.
    fn vline(&mut self, x: i64, y0: i64, y1: i64, width: i64, dash: i64, colour: Rgb) {
        for y in y0..y1 {
            if dash == 0 || ((y - y0) / dash) % 2 == 0 {
                self.rect(x, y, x + width, y + 1, colour);
            }
        }
    }

    /// Draws `text` with its baseline at `y`, starting at `x` or ending there.
    fn text(&mut self, font: &Font<'_>, text: &str, x: f32, y: f32, anchor: Anchor, colour: Rgb) {
        let scale = font.scale();
        let mut pen = match anchor {
            Anchor::Start => x,
            Anchor::End => x - font.width(text),
        };
        for glyph in text.chars().filter_map(|c| font.glyph(c)) {
            if let Some(bbox) = font.face.glyph_bounding_box(glyph) {
                // The glyph's box in pixels, with a pixel of margin, its origin on whole pixels.
                let left = (pen + f32::from(bbox.x_min) * scale).floor() - 1.0;
                let top = (y - f32::from(bbox.y_max) * scale).floor() - 1.0;
                let w = ((f32::from(bbox.x_max - bbox.x_min)) * scale).ceil() as usize + 3;
                let h = ((f32::from(bbox.y_max - bbox.y_min)) * scale).ceil() as usize + 3;
                let mut raster = Rasterizer::new(w, h);
                let mut outline = Outline {
                    raster: &mut raster,
                    scale,
                    dx: pen - left,
                    dy: y - top,
                    start: point(0.0, 0.0),
                    last: point(0.0, 0.0),
                };
                font.face.outline_glyph(glyph, &mut outline);
                raster.for_each_pixel_2d(|px, py, coverage| {
                    let alpha = (coverage.clamp(0.0, 1.0) * 255.0 + 0.5) as u32;
                    self.blend(
                        left as i64 + i64::from(px),
                        top as i64 + i64::from(py),
                        colour,
                        alpha,
                    );
                });
            }
            pen += font.advance(glyph);
        }
    }
}

/// `text` in lines of at most `max` pixels, broken between words.
fn wrap(font: &Font<'_>, text: &str, max: f32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if font.width(&format!("{line} {word}")) <= max => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// At most `max` pixels of `text`, cut with an ellipsis.
fn fit(font: &Font<'_>, text: &str, max: f32) -> String {
    if font.width(text) <= max {
        return text.to_string();
    }
    let mut cut: String = text.to_string();
    while !cut.is_empty() && font.width(&format!("{cut}…")) > max {
        cut.pop();
    }
    format!("{}…", cut.trim_end())
}

/// Draws the card and returns it as PNG bytes.
pub fn card(
    analysis: &Analysis,
    highlights: &Highlights,
    config: &ArticleConfig,
) -> Result<Vec<u8>> {
    let groups = super::bar_groups(analysis, highlights)?;
    let text = ratios_base::template::render(
        &Words {
            config,
            round: &analysis.round,
            host: config.origin().trim_start_matches("https://"),
            shown: highlights.highlights.len(),
            pairs: analysis.counts.pairs,
        },
        "text/card.txt",
    )?;
    let mut lines = text.lines();
    let mut line = || lines.next().unwrap_or_default();
    let (title, subtitle, byline, note) = (line(), line(), line(), line());
    let regular = ttf_noto_sans::REGULAR;
    let bold = ttf_noto_sans::BOLD;
    let title_font = Font::new(bold, 46.0)?;
    let small = Font::new(regular, 24.0)?;
    let label = Font::new(regular, 25.0)?;
    // The group headings and the values: one face at one size.
    let heading = Font::new(bold, 25.0)?;
    let mut c = Canvas::new();
    let margin = 56.0;
    let inner = WIDTH as f32 - 2.0 * margin;

    let mut y = 92.0;
    for line in wrap(&title_font, title, inner).iter().take(2) {
        c.text(&title_font, line, margin, y, Anchor::Start, TEXT);
        y += 56.0;
    }
    c.text(
        &small,
        &fit(&small, subtitle, inner),
        margin,
        y - 8.0,
        Anchor::Start,
        MUTED,
    );

    // The bars: labels end left of the plot, values start right of it, as in figure 3.
    let plot_x = 330.0;
    let plot_right = 1000.0;
    let max_pct = groups
        .iter()
        .flat_map(|g| g.bars.iter().map(|b| b.ratio.percent()))
        .fold(100.0, f64::max);
    let domain = super::axis_top(max_pct);
    let x_of = |pct: f64| {
        (f64::from(plot_x) + f64::from(plot_right - plot_x) * pct.clamp(0.0, domain) / domain)
            .round() as i64
    };
    let bar_height = 30.0;
    let gap = 10.0;
    let mut y = y + 26.0;
    for group in &groups {
        c.text(
            &heading,
            &fit(&heading, group.system, inner),
            margin,
            y + 22.0,
            Anchor::Start,
            TEXT,
        );
        y += 36.0;
        for bar in &group.bars {
            let (top, bottom) = (y.round() as i64, (y + bar_height).round() as i64);
            // Grid and the 100 % line along the bar's row only, as in the figure.
            for pct in (0..=(domain as i64)).step_by(20) {
                c.vline(x_of(pct as f64), top - 5, bottom + 5, 1, 0, GRID);
            }
            let colour = BENCHMARK_COLOURS[bar.k % BENCHMARK_COLOURS.len()];
            c.rect(x_of(0.0), top, x_of(bar.ratio.percent()), bottom, colour);
            c.vline(x_of(100.0) - 1, top - 5, bottom + 5, 3, 6, REFERENCE);
            let baseline = y + bar_height / 2.0 + 9.0;
            c.text(
                &label,
                &fit(&label, bar.model, plot_x - margin - 14.0),
                plot_x - 14.0,
                baseline,
                Anchor::End,
                TEXT,
            );
            c.text(
                &heading,
                &ratios_base::number::percent(bar.ratio),
                plot_right + 16.0,
                baseline,
                Anchor::Start,
                TEXT,
            );
            y += bar_height + gap;
        }
        y += 8.0;
    }
    // The axis and its labels under the last bar.
    let axis = (y - 8.0 - gap / 2.0).round() as i64;
    c.rect(x_of(0.0), axis, x_of(domain) + 1, axis + 1, MUTED);
    for pct in (0..=(domain as i64)).step_by(20) {
        let label = format!("{pct}{}%", ratios_base::text::NBSP);
        let x = x_of(pct as f64) as f32 + small.width(&label) / 2.0;
        c.text(&small, &label, x, axis as f32 + 30.0, Anchor::End, MUTED);
    }
    // The byline along the bottom edge, the note at its right.
    let base = HEIGHT as f32 - 30.0;
    c.rect(
        0,
        (base - 38.0) as i64,
        i64::from(WIDTH),
        (base - 37.0) as i64,
        GRID,
    );
    c.text(&small, byline, margin, base, Anchor::Start, MUTED);
    c.text(
        &small,
        note,
        WIDTH as f32 - margin,
        base,
        Anchor::End,
        MUTED,
    );
    png(&c.pixels)
}

/// The RGB `pixels` of the card as a PNG: signature, header, one zlib stream of unfiltered
/// rows, end.
fn png(pixels: &[u8]) -> Result<Vec<u8>> {
    let fail = |e: std::io::Error| Error::Output {
        path: OUTPUT.into(),
        message: format!("cannot compress: {e}"),
    };
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::with_capacity(13);
    header.extend(WIDTH.to_be_bytes());
    header.extend(HEIGHT.to_be_bytes());
    // 8 bits per channel, RGB, deflate, adaptive filtering (each row says it is unfiltered),
    // no interlacing.
    header.extend([8, 2, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &header);
    let row = (WIDTH * 3) as usize;
    let mut raw = Vec::with_capacity((row + 1) * HEIGHT as usize);
    for line in pixels.chunks(row) {
        raw.push(0);
        raw.extend_from_slice(line);
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
    z.write_all(&raw).map_err(fail)?;
    let data = z.finish().map_err(fail)?;
    chunk(&mut out, b"IDAT", &data);
    chunk(&mut out, b"IEND", &[]);
    Ok(out)
}

/// Appends one PNG chunk: length, type, data and the CRC-32 of type and data.
fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend((data.len() as u32).to_be_bytes());
    out.extend(kind);
    out.extend(data);
    let mut crc = flate2::Crc::new();
    crc.update(kind);
    crc.update(data);
    out.extend(crc.sum().to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_png_chunk_carries_its_length_and_crc() {
        let mut out = Vec::new();
        chunk(&mut out, b"IEND", &[]);
        // The IEND chunk of every PNG: length 0, type, CRC-32 AE 42 60 82.
        assert_eq!(
            out,
            [0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xae, 0x42, 0x60, 0x82]
        );
    }

    #[test]
    fn text_is_drawn_in_its_colour_and_blending_is_integer() {
        let mut c = Canvas::new();
        let font = Font::new(ttf_noto_sans::BOLD, 40.0).unwrap();
        c.text(&font, "H", 10.0, 50.0, Anchor::Start, TEXT);
        // A pixel inside the H's left stem is the text colour, one far away the background.
        let at = |x: u32, y: u32| {
            let i = ((y * WIDTH + x) * 3) as usize;
            Rgb(c.pixels[i], c.pixels[i + 1], c.pixels[i + 2])
        };
        assert!((0..40).any(|x| at(x, 35) == TEXT), "no stem");
        assert_eq!(at(500, 300), BACKGROUND);
        // Half coverage of black on white: (255 × 128 + 0 × 127 + 127) / 255 = 128.
        let mut one = Canvas::new();
        one.blend(0, 0, Rgb(0, 0, 0), 127);
        assert_eq!(one.pixels[..3], [128, 128, 128]);
    }

    #[test]
    fn a_rectangle_is_full_coverage_blending_clipped_to_the_canvas() {
        let colour = Rgb(12, 200, 77);
        let cases = [
            (10, 20, 30, 25),
            (-5, -5, 3, 2),
            (i64::from(WIDTH) - 2, i64::from(HEIGHT) - 1, 9_999, 9_999),
            (40, 10, 40, 30),
            (50, 10, 20, 30),
        ];
        for (x0, y0, x1, y1) in cases {
            let mut filled = Canvas::new();
            filled.rect(x0, y0, x1, y1, colour);
            let mut blended = Canvas::new();
            for y in y0..y1 {
                for x in x0..x1 {
                    blended.blend(x, y, colour, 255);
                }
            }
            assert!(filled.pixels == blended.pixels, "{x0} {y0} {x1} {y1}");
        }
    }
}
