//! Units of evidence. The systems of a round are not independent draws: partners submit
//! systems built on one maker's design, with its software and often its Server target, and one
//! organisation submits several systems. So a count of systems is made again with one vote per
//! organisation and one per hardware configuration ([`Configuration`]): each unit votes by the
//! median of its systems' differences, and an exact sign test counts the votes.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use ratios_base::stats::sign_test;

/// A hardware configuration: the accelerator's name in lower case (the summaries spell one
/// accelerator in several cases), the accelerators per node and the node count; for a system
/// without accelerators, its host processor's name in lower case, the processors per node and
/// the node count.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Configuration {
    /// No accelerator: `name` is the host processor's.
    pub cpu_only: bool,
    /// The accelerator's name in lower case, or the host processor's for a CPU-only system.
    pub name: String,
    /// Accelerators per node, or host processors per node for a CPU-only system.
    pub per_node: i64,
    /// The node count (`number_of_nodes`).
    pub nodes: i64,
}

impl Configuration {
    /// The configuration in words, its part spelled `name` (as the summary writes it; the
    /// configuration itself keeps it in lower case): `8 × NVIDIA B300 on 1 node`.
    pub fn spelled(&self, name: &str) -> String {
        let node = if self.nodes == 1 { "node" } else { "nodes" };
        let what = if self.cpu_only {
            " (no accelerator)"
        } else {
            ""
        };
        format!("{} × {name}{what} on {} {node}", self.per_node, self.nodes)
    }
}

impl fmt::Display for Configuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.spelled(&self.name))
    }
}

/// The votes of the units behind a comparison of two things (two benchmarks, or a benchmark
/// against the others): each unit votes by the sign of the median of its systems' differences.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Votes {
    /// Units counted, each casting one vote by the median of its systems' differences.
    pub units: usize,
    /// Units whose median difference is positive: the first keeps more, or the benchmark lies below
    /// the others.
    pub first: usize,
    /// Units whose median difference is negative.
    pub second: usize,
    /// Units whose median difference is zero.
    pub ties: usize,
    /// The exact two-sided sign test of the untied votes.
    pub p_value: f64,
}

impl Votes {
    /// The votes of `diffs` (a unit's key and one system's difference), grouped by key.
    pub fn of<K: Ord>(diffs: impl IntoIterator<Item = (K, f64)>) -> Votes {
        let mut by: BTreeMap<K, Vec<f64>> = BTreeMap::new();
        for (k, d) in diffs {
            by.entry(k).or_default().push(d);
        }
        let medians: Vec<f64> = by
            .into_values()
            .filter_map(crate::analysis::median)
            .collect();
        let first = medians.iter().filter(|&&m| m > 0.0).count();
        let second = medians.iter().filter(|&&m| m < 0.0).count();
        Votes {
            units: medians.len(),
            first,
            second,
            ties: medians.len() - first - second,
            p_value: sign_test(first as u32, (first + second) as u32).unwrap_or(f64::NAN),
        }
    }
}

/// The same count made at the three levels: one vote per system, per organisation and per
/// hardware configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnitVotes {
    /// One vote per system (results folder).
    pub systems: Votes,
    /// One vote per organisation.
    pub organizations: Votes,
    /// One vote per hardware configuration; a system whose configuration the summary leaves
    /// incomplete votes alone.
    pub configurations: Votes,
}

/// What a system is counted under at each level.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Membership {
    /// The system's organisation (`Organization`), its unit at the organisation level.
    pub organization: String,
    /// The system's configuration, or its own name where the summary leaves a field of it empty
    /// (the system is then a configuration of its own).
    pub configuration: Result<Configuration, String>,
}

impl UnitVotes {
    /// The votes of `diffs`: each system's membership, its name and its difference.
    pub fn of(diffs: &[(&Membership, String, f64)]) -> Self {
        UnitVotes {
            systems: Votes::of(diffs.iter().map(|(_, s, d)| (s.clone(), *d))),
            organizations: Votes::of(diffs.iter().map(|(m, _, d)| (m.organization.clone(), *d))),
            configurations: Votes::of(diffs.iter().map(|(m, _, d)| (m.configuration.clone(), *d))),
        }
    }
}

/// The items of the submitters' `framework` lists that the most systems list, sorted, and how
/// many systems list each of them: software the systems share, which makes them less
/// independent than their count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SharedSoftware {
    /// The items the most systems list, sorted (`CUDA 13.1`, `TensorRT 10.14`).
    pub items: Vec<String>,
    /// How many systems list each of them (two or more).
    pub systems: usize,
}

/// The items of a `framework` list: split at `,` and `;`, trimmed, empty ones left out.
pub fn software_items(framework: &str) -> impl Iterator<Item = &str> {
    framework
        .split([',', ';'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The items the most of `frameworks` (one per system) list, when two systems or more list them.
pub fn shared_software<'a>(
    frameworks: impl IntoIterator<Item = &'a str>,
) -> Option<SharedSoftware> {
    most_listed(frameworks.into_iter().map(software_items))
}

/// The items the most systems list (each system's items given together, each counted once per
/// system), when two systems or more list them.
pub(crate) fn most_listed<'a, S: IntoIterator<Item = &'a str>>(
    systems: impl IntoIterator<Item = S>,
) -> Option<SharedSoftware> {
    let mut listed: BTreeMap<&str, usize> = BTreeMap::new();
    for items in systems {
        let items: std::collections::BTreeSet<&str> = items.into_iter().collect();
        for item in items {
            *listed.entry(item).or_default() += 1;
        }
    }
    let most = listed.values().copied().max().unwrap_or(0);
    (most >= 2).then(|| SharedSoftware {
        items: listed
            .into_iter()
            .filter(|&(_, n)| n == most)
            .map(|(item, _)| item.to_string())
            .collect(),
        systems: most,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(org: &str, config: &str) -> Membership {
        Membership {
            organization: org.into(),
            configuration: Ok(Configuration {
                cpu_only: false,
                name: config.into(),
                per_node: 8,
                nodes: 1,
            }),
        }
    }

    /// Two partners that copy one maker's system count once per configuration: four systems
    /// that agree are four votes, but the three that share a configuration are one.
    #[test]
    fn partners_on_one_configuration_are_one_vote() {
        let (a, b, c, d) = (
            member("Maker", "x"),
            member("Partner1", "x"),
            member("Partner2", "x"),
            member("Other", "y"),
        );
        let diffs = vec![
            (&a, "a".to_string(), 0.05),
            (&b, "b".to_string(), 0.03),
            (&c, "c".to_string(), 0.04),
            (&d, "d".to_string(), 0.01),
        ];
        let v = UnitVotes::of(&diffs);
        assert_eq!((v.systems.units, v.systems.first), (4, 4));
        // 4 of 4: 2 / 16.
        assert_eq!(v.systems.p_value, 0.125);
        assert_eq!((v.organizations.units, v.organizations.first), (4, 4));
        assert_eq!((v.configurations.units, v.configurations.first), (2, 2));
        // 2 of 2: 2 / 4.
        assert_eq!(v.configurations.p_value, 0.5);
    }

    /// A unit votes by the median of its systems: two of three against outvote one for.
    #[test]
    fn a_unit_votes_by_its_median_system() {
        let v = Votes::of([("u", 0.10), ("u", -0.01), ("u", -0.02), ("w", 0.0)]);
        assert_eq!((v.units, v.first, v.second, v.ties), (2, 0, 1, 1));
        assert_eq!(v.p_value, 1.0);
    }

    /// Software listed by most systems, each item counted once per system.
    #[test]
    fn the_software_most_systems_list_is_found_item_by_item() {
        let s = shared_software([
            "TRT 10, CUDA 13; Dynamo",
            "TRT 10, CUDA 13",
            "TRT 10, TRT 10",
            "vLLM",
        ])
        .unwrap();
        assert_eq!((s.items, s.systems), (vec!["TRT 10".to_string()], 3));
        assert_eq!(shared_software(["a", "b"]), None);
    }

    #[test]
    fn a_configuration_reads_as_its_count_name_and_nodes() {
        let c = Configuration {
            cpu_only: true,
            name: "intel xeon 6787p".into(),
            per_node: 2,
            nodes: 1,
        };
        assert_eq!(
            c.to_string(),
            "2 × intel xeon 6787p (no accelerator) on 1 node"
        );
    }
}
