//! The few distributions the analysis tests against: the upper tail of Snedecor's F (through
//! the regularised incomplete beta function, by its continued fraction) and the exact two-sided
//! sign test (binomial with p = ½, counted in whole numbers).

/// The regularised incomplete beta function I_x(a, b), for a, b > 0 and 0 ≤ x ≤ 1, by the
/// continued fraction of Numerical Recipes (§6.4) evaluated with the modified Lentz method;
/// `None` outside its domain or when the fraction does not settle within 500 terms.
pub fn incomplete_beta(a: f64, b: f64, x: f64) -> Option<f64> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
