//! Accuracy as the pinned files state it: `accuracy.txt` (a Python dict, or one `'name': value`
//! pair per line, with the `hash=` line the checker requires) and the summary's Accuracy field
//! (`NAME: value  NAME: value`). Metric keys are mapped to the checker's names by the facts file.

use std::collections::BTreeMap;

use crate::evidence::loadgen::{refuse_controls, Printed};
use crate::project::facts::CheckerFacts;
use ratios_base::error::{Error, Result};

/// Metrics printed by `accuracy.txt` as `'key': number`, under the checker's names where the
/// facts know the key.
pub fn parse_accuracy_report(
    file: &str,
    text: &str,
    facts: &CheckerFacts,
) -> Result<BTreeMap<String, Printed>> {
    refuse_controls(file, text)?;
    let mut metrics = BTreeMap::new();
    let mut rest = text;
    while let Some(start) = rest.find('\'') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('\'') else { break };
        let key = &after[..end];
        let tail = &after[end + 1..];
        rest = tail;
        let Some(value) = tail.trim_start().strip_prefix(':') else {
            continue;
        };
        let number: String = value
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))
            .collect();
        if let Some(v) = number.parse::<f64>().ok().filter(|v| v.is_finite()) {
            let name = facts.metric_of_report_key(key).unwrap_or(key);
            metrics.entry(name.to_string()).or_insert(Printed {
                text: number,
                value: v,
            });
        }
    }
    if metrics.is_empty() {
        return Err(Error::parse(
            file,
            "whole file",
            "no `'metric': value` pairs found",
        ));
    }
    if !text.lines().any(|l| l.trim_start().starts_with("hash=")) {
        return Err(Error::parse(
            file,
            "whole file",
            "missing the `hash=` line the checker requires",
        ));
    }
    Ok(metrics)
}

/// Metrics of the summary's Accuracy field, written `NAME: value  NAME: value`.
pub fn parse_accuracy_field(text: &str) -> BTreeMap<String, Printed> {
    let mut metrics = BTreeMap::new();
    let mut tokens = text.split_whitespace();
    while let Some(tok) = tokens.next() {
        let Some(name) = tok.strip_suffix(':') else {
            continue;
        };
        if let Some(value) = tokens.next() {
            if let Ok(v) = value.parse::<f64>() {
                metrics.insert(
                    name.to_string(),
                    Printed {
                        text: value.to_string(),
                        value: v,
                    },
                );
            }
        }
    }
    metrics
}

/// The significant figures to which the summary gives most Results: 397 of the 492 v6.1 rows
/// print at most six, as a number rounded to six significant figures prints (`59867.8`,
/// `106637.0`, `1039900.0`); the others print a longer, unrounded value.
pub(crate) const SUMMARY_SIGNIFICANT_DIGITS: usize = 6;

/// The significant digits a number prints: from its first non-zero digit to its last non-zero
/// one (`100630.0` has five, `59867.8` six, `0.0731282` six).
pub(crate) fn significant_digits(text: &str) -> usize {
    let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    digits.trim_start_matches('0').trim_end_matches('0').len()
}

/// The unit the summary's Result is rounded to: a unit of the sixth significant figure when it
/// prints at most six (rounding to six figures leaves no more), else a unit of its last printed
/// digit.
pub(crate) fn summary_unit(text: &str) -> f64 {
    let value: f64 = text.trim().parse().unwrap_or(f64::NAN);
    if significant_digits(text) <= SUMMARY_SIGNIFICANT_DIGITS && value.is_finite() && value != 0.0 {
        // libm's log10, not the system's: the same answer on every platform and C library.
        let exponent = libm::log10(value.abs()).floor() as i32;
        10f64.powi(exponent - (SUMMARY_SIGNIFICANT_DIGITS as i32 - 1))
    } else {
        2.0 * half_unit_of_last_digit(text)
    }
}

/// Half a unit of the last digit `text` prints (trailing fractional zeros do not count), its
/// exponent applied: `59867.8` gives 0.05, `1.5e3` gives 50.
pub fn half_unit_of_last_digit(text: &str) -> f64 {
    let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
    let exponent: i32 = text
        .split_once(['e', 'E'])
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let decimals = mantissa
        .split_once('.')
        .map_or(0, |(_, frac)| frac.trim_end_matches('0').len() as i32);
    0.5 * 10f64.powi(exponent.saturating_sub(decimals))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> CheckerFacts {
        let text = std::fs::read_to_string(
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
                .join(crate::project::facts::FACTS_PATH),
        )
        .unwrap();
        CheckerFacts::parse("facts", &text).unwrap()
    }

    #[test]
    fn accuracy_reports_in_both_shapes_are_read() {
        let f = facts();
        let dict =
            "Results\n\n{'rouge1': 44.8, 'rougeL': 29.2, 'tokens_per_sample': 272.7}\n\nhash=ab\n";
        let m = parse_accuracy_report("a.txt", dict, &f).unwrap();
        assert_eq!(m["ROUGE1"].value, 44.8);
        assert_eq!(m["ROUGEL"].text, "29.2");
        assert_eq!(m["TOKENS_PER_SAMPLE"].value, 272.7);
        let lines = "Printing:\n\n'exact_match': 83.702\n\nhash=cd\n";
        assert_eq!(
            parse_accuracy_report("a.txt", lines, &f).unwrap()["exact_match"].value,
            83.702
        );
        assert!(parse_accuracy_report("a.txt", "'exact_match': 1.0\n", &f).is_err());
    }

    #[test]
    fn accuracy_field_pairs_are_read() {
        let m = parse_accuracy_field("ROUGE1: 44.7951  ROUGE2: 22.3759  TOKENS_PER_SAMPLE: 272.8");
        assert_eq!(m.len(), 3);
        assert_eq!(m["ROUGE2"].value, 22.3759);
    }

    #[test]
    fn half_unit_follows_the_printed_digits() {
        assert_eq!(half_unit_of_last_digit("59867.8"), 0.05);
        assert_eq!(half_unit_of_last_digit("100630.0"), 0.5);
        assert_eq!(half_unit_of_last_digit("42"), 0.5);
        assert_eq!(half_unit_of_last_digit("1.25e3"), 5.0);
    }

    #[test]
    fn the_summary_is_read_as_rounded_to_six_significant_figures() {
        // Counted by hand: digits from the first non-zero one to the last non-zero one.
        assert_eq!(significant_digits("59867.8"), 6);
        assert_eq!(significant_digits("100630.0"), 5);
        assert_eq!(significant_digits("1039900.0"), 5);
        assert_eq!(significant_digits("0.0731282"), 6);
        assert_eq!(significant_digits("1183326.8540322022"), 17);
        // A unit of the sixth significant figure: 59867.8 → 0.1, 100630 → 1, 1039900 → 10.
        assert_eq!(summary_unit("59867.8"), 0.1f64.max(summary_unit("59867.8")));
        assert!((summary_unit("59867.8") - 0.1).abs() < 1e-15);
        assert_eq!(summary_unit("100630.0"), 1.0);
        assert_eq!(summary_unit("1039900.0"), 10.0);
        assert!((summary_unit("0.0731282") - 1e-7).abs() < 1e-20);
        // A longer value is not rounded: its last printed digit is its unit.
        assert!((summary_unit("1183326.8540322022") - 1e-10).abs() < 1e-22);
    }
}
