//! The few distributions the analysis tests against: the upper tail of Snedecor's F (through
//! the regularised incomplete beta function, by its continued fraction) and the exact two-sided
//! sign test (binomial with p = ½, counted in whole numbers); and what a permutation test needs:
//! a small linear solver and a seeded generator with its shuffle, simple enough that a second
//! implementation (the notebook's) draws the same permutations.

/// The regularised incomplete beta function I_x(a, b), for a, b > 0 and 0 ≤ x ≤ 1, by the
/// continued fraction of Numerical Recipes (§6.4) evaluated with the modified Lentz method;
/// `None` outside its domain or when the fraction does not settle within 500 terms.
pub(crate) fn incomplete_beta(a: f64, b: f64, x: f64) -> Option<f64> {
    if !(a > 0.0 && b > 0.0 && (0.0..=1.0).contains(&x)) {
        return None;
    }
    if x == 0.0 || x == 1.0 {
        return Some(x);
    }
    // The fraction converges fast for x < (a + 1) / (a + b + 2); beyond it, by symmetry.
    if x > (a + 1.0) / (a + b + 2.0) {
        return incomplete_beta(b, a, 1.0 - x).map(|v| 1.0 - v);
    }
    let ln_front =
        libm::lgamma(a + b) - libm::lgamma(a) - libm::lgamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp() / a;
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=500 {
        let m = f64::from(m);
        // The even and the odd step of the fraction.
        for numerator in [
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
        ] {
            d = 1.0 + numerator * d;
            if d.abs() < TINY {
                d = TINY;
            }
            c = 1.0 + numerator / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-15 {
            return Some((front * h).clamp(0.0, 1.0));
        }
    }
    None
}

/// P(F > f) for Snedecor's F with `d1` and `d2` degrees of freedom: I_{d2/(d2 + d1 f)}(d2/2, d1/2).
pub fn f_upper_tail(f: f64, d1: f64, d2: f64) -> Option<f64> {
    if !(f >= 0.0 && d1 > 0.0 && d2 > 0.0) {
        return None;
    }
    incomplete_beta(d2 / 2.0, d1 / 2.0, d2 / (d2 + d1 * f))
}

/// C(n, k) exactly, or `None` when it does not fit in 128 bits.
fn binomial(n: u32, k: u32) -> Option<u128> {
    let k = k.min(n.checked_sub(k)?);
    let mut c: u128 = 1;
    for i in 0..k {
        // c · (n − i) is divisible by i + 1 after the multiplication.
        c = c.checked_mul(u128::from(n - i))? / u128::from(i + 1);
    }
    Some(c)
}

/// The exact two-sided sign test: of `n` untied comparisons, `k` went one way. The p-value is
/// the probability, with each way equally likely, of a split at least as uneven as k : n − k,
/// counting both tails (at most 1). `None` beyond 120 comparisons, where the counts outgrow
/// 128 bits.
pub fn sign_test(k: u32, n: u32) -> Option<f64> {
    if k > n || n > 120 {
        return None;
    }
    if n == 0 {
        return Some(1.0);
    }
    let low = k.min(n - k);
    let mut tail: u128 = 0;
    for i in 0..=low {
        tail += binomial(n, i)?;
    }
    // Both tails: 2 · tail / 2^n, which reaches 1 or more when the split is even.
    let total = 1u128 << n;
    Some((2.0 * tail as f64 / total as f64).min(1.0))
}

/// The solution of `matrix · x = vector` (a square system) by Gaussian elimination with partial
/// pivoting; `None` when the matrix is singular (a pivot below 1e-12 of the largest entry) or
/// the sizes differ.
pub fn solve(matrix: &[Vec<f64>], vector: &[f64]) -> Option<Vec<f64>> {
    let n = vector.len();
    if matrix.len() != n || matrix.iter().any(|row| row.len() != n) {
        return None;
    }
    let scale = matrix.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    let mut a: Vec<Vec<f64>> = matrix
        .iter()
        .zip(vector)
        .map(|(row, &v)| row.iter().copied().chain([v]).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        // A NaN pivot is refused too.
        if a[pivot][col].abs() <= 1e-12 * scale || a[pivot][col].is_nan() {
            return None;
        }
        a.swap(col, pivot);
        let (done, rest) = a.split_at_mut(col + 1);
        let pivot_row = &done[col];
        for row in rest.iter_mut() {
            let factor = row[col] / pivot_row[col];
            for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= factor * p;
            }
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let tail: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (a[row][n] - tail) / a[row][row];
    }
    Some(x)
}

/// Steele, Lea and Flood's SplitMix64: a 64-bit state advanced by a constant and mixed. Not for
/// secrets; for a permutation test that anyone can repeat from its seed.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose state starts at `seed`: the same seed gives the same sequence.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// Advances the state and returns its next 64-bit output, uniform over all `u64` values.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Fisher and Yates's shuffle, from the last item down: item i swaps with item
    /// `next_u64() % (i + 1)` (the remainder's bias, below 2⁻⁵⁷ for these lengths, is kept so
    /// that the rule stays this simple).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (self.next_u64() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generator's first outputs from seed 0 and 1234567, as its authors' reference code
    /// (splitmix64.c) prints them.
    #[test]
    fn splitmix64_draws_the_reference_sequence() {
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        let mut r = SplitMix64::new(1_234_567);
        assert_eq!(r.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(r.next_u64(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn a_shuffle_is_a_permutation_and_repeats_from_its_seed() {
        let shuffled = |seed| {
            let mut v: Vec<u32> = (0..20).collect();
            SplitMix64::new(seed).shuffle(&mut v);
            v
        };
        let a = shuffled(7);
        assert_eq!(a, shuffled(7));
        assert_ne!(a, shuffled(8));
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..20).collect::<Vec<_>>());
    }

    #[test]
    fn the_solver_solves_a_pivoting_system_and_refuses_a_singular_one() {
        // 0·x + y = 2, x + y = 3: x = 1, y = 2 (the first pivot is zero, so rows swap).
        let x = solve(&[vec![0.0, 1.0], vec![1.0, 1.0]], &[2.0, 3.0]).unwrap();
        assert!((x[0] - 1.0).abs() < 1e-15 && (x[1] - 2.0).abs() < 1e-15);
        assert_eq!(solve(&[vec![1.0, 2.0], vec![2.0, 4.0]], &[1.0, 2.0]), None);
        assert_eq!(solve(&[vec![1.0]], &[1.0, 2.0]), None);
    }

    #[test]
    fn the_f_tail_of_one_and_one_degrees_is_the_cauchy_formula() {
        // F(1, 1) is the square of a standard Cauchy variable: P(F > f) = 1 − (2/π) atan(√f).
        for f in [0.25, 1.0, 4.0, 9.0, 100.0] {
            let exact = 1.0 - 2.0 / std::f64::consts::PI * f64::sqrt(f).atan();
            let got = f_upper_tail(f, 1.0, 1.0).unwrap();
            assert!((got - exact).abs() < 1e-12, "{f}: {got} against {exact}");
        }
        assert_eq!(f_upper_tail(0.0, 3.0, 7.0), Some(1.0));
        assert_eq!(f_upper_tail(-1.0, 3.0, 7.0), None);
    }

    #[test]
    fn the_f_tail_of_two_degrees_is_a_power() {
        // With d1 = 2: P(F > f) = (1 + 2f/d2)^(−d2/2).
        for (f, d2) in [(0.5f64, 3.0f64), (3.0, 10.0), (7.5, 40.0)] {
            let exact = (1.0 + 2.0 * f / d2).powf(-d2 / 2.0);
            let got = f_upper_tail(f, 2.0, d2).unwrap();
            assert!(
                (got - exact).abs() < 1e-12,
                "{f} {d2}: {got} against {exact}"
            );
        }
    }

    #[test]
    fn the_incomplete_beta_of_whole_arguments_is_a_binomial_tail() {
        // I_p(k, n − k + 1) = P(X ≥ k) for X ~ Binomial(n, p), a sum in whole numbers.
        let (n, p) = (12u32, 0.3f64);
        for k in 1..=n {
            let tail: f64 = (k..=n)
                .map(|i| {
                    binomial(n, i).unwrap() as f64
                        * p.powi(i as i32)
                        * (1.0 - p).powi((n - i) as i32)
                })
                .sum();
            let got = incomplete_beta(f64::from(k), f64::from(n - k + 1), p).unwrap();
            assert!((got - tail).abs() < 1e-12, "k = {k}: {got} against {tail}");
        }
        assert_eq!(incomplete_beta(2.0, 3.0, 1.5), None);
    }

    #[test]
    fn the_sign_test_counts_both_tails_exactly() {
        // 10 of 10 one way: 2 / 1024.
        assert_eq!(sign_test(10, 10), Some(2.0 / 1024.0));
        assert_eq!(sign_test(0, 10), Some(2.0 / 1024.0));
        // 8 of 10: 2 · (1 + 10 + 45) / 1024.
        assert_eq!(sign_test(8, 10), Some(112.0 / 1024.0));
        // An even split, or nothing to compare, proves nothing.
        assert_eq!(sign_test(5, 10), Some(1.0));
        assert_eq!(sign_test(0, 0), Some(1.0));
        assert_eq!(sign_test(11, 10), None);
        assert_eq!(binomial(120, 60).map(|c| c > 0), Some(true));
    }
}
