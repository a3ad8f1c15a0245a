//! Exact matching of the rows of one submission: eligible rows are grouped by their key (typed
//! value and raw text of every key field, and of the round's further key fields), and a key with exactly one Offline row and one row of
//! the partner scenario (Server or Interactive) is a pair. Rows are bucketed by a 64-bit
//! fingerprint of the key, then compared exactly, so a fingerprint collision can never put two
//! different keys together. Linear in rows.

use std::collections::HashMap;

use super::UnmatchedReason;
use crate::summary::{Field, Scenario, SummaryRow};

/// The outcome of matching: pairs of row indices (Offline, partner), and every other eligible row
/// with its scenario and the reason it has no pair.
pub(super) struct Matched {
    pub pairs: Vec<(usize, usize)>,
    pub unmatched: Vec<(usize, Scenario, UnmatchedReason)>,
}

/// Matches the eligible rows (indices into `rows`, each of scenario Offline or `partner`) on the
/// fields `keys`.
pub(super) fn match_rows(
    rows: &[SummaryRow],
    eligible: &[usize],
    keys: &[Field],
    partner: Scenario,
) -> Matched {
    let groups = group_by_key(rows, eligible, keys);
    let mut pairs = Vec::with_capacity(groups.len());
    let mut unmatched = Vec::new();
    for group in &groups {
        let members = || group.iter().copied();
        let of = |s: Scenario| members().filter(move |&i| rows[i].scenario() == Some(s));
        let (offline, partners) = (of(Scenario::Offline).count(), of(partner).count());
        if let (1, 1, Some(o), Some(p)) = (
            offline,
            partners,
            of(Scenario::Offline).next(),
            of(partner).next(),
        ) {
            pairs.push((o, p));
            continue;
        }
        let reason = if offline == 0 || partners == 0 {
            UnmatchedReason::NoPartner {
                missing: if offline == 0 {
                    Scenario::Offline
                } else {
                    partner
                },
            }
        } else {
            UnmatchedReason::DuplicateKey {
                offline,
                partner,
                partners,
            }
        };
        for i in members() {
            if let Some(s) = rows[i].scenario() {
                unmatched.push((i, s, reason.clone()));
            }
        }
    }
    Matched { pairs, unmatched }
}

/// Groups eligible rows by their key: (typed value, raw text) of every key field. Each group
/// holds its rows in eligible order; the groups come in the order of their first rows.
fn group_by_key(rows: &[SummaryRow], eligible: &[usize], keys: &[Field]) -> Vec<Vec<usize>> {
    let same_key = |a: &SummaryRow, b: &SummaryRow| {
        keys.iter()
            .all(|&f| a.typed(f) == b.typed(f) && a.raw(f) == b.raw(f))
            && a.extra() == b.extra()
    };
    // Each fingerprint's groups: more than one only when two keys collide.
    let mut by_fingerprint: HashMap<u64, Vec<usize>> = HashMap::with_capacity(eligible.len());
    let mut groups: Vec<Vec<usize>> = Vec::with_capacity(eligible.len());
    for &i in eligible {
        let candidates = by_fingerprint
            .entry(fingerprint(&rows[i], keys))
            .or_default();
        match candidates
            .iter()
            .find(|&&g| same_key(&rows[groups[g][0]], &rows[i]))
        {
            Some(&g) => groups[g].push(i),
            None => {
                candidates.push(groups.len());
                groups.push(vec![i]);
            }
        }
    }
    groups
}

/// A 64-bit fingerprint of a row's key (typed values and raw text of the key fields).
fn fingerprint(row: &SummaryRow, keys: &[Field]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for &f in keys {
        row.typed(f).hash(&mut h);
        row.raw(f).hash(&mut h);
    }
    row.extra().hash(&mut h);
    h.finish()
}
