//! Numbers as the article, its tables and its figures print them, so a figure is printed the same
//! way everywhere: percentages, percentage points, grouped throughputs and SVG coordinates.

use crate::base::text::NBSP;

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

#[cfg(test)]
mod tests {
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
