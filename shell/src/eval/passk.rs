//! The unbiased pass@k estimator (Chen et al. 2021): the chance that at least one of k attempts
//! drawn without replacement from n, of which c passed, passes: 1 − C(n−c, k) / C(n, k).

/// pass@k for `c` passes out of `n` attempts, or `None` when `k` is 0 or more than `n`.
///
/// The ratio of binomials is computed as the product ∏_{i=n−c+1}^{n} (1 − k/i), which never
/// forms a binomial coefficient, so it cannot overflow for any n.
pub(crate) fn pass_at_k(n: u64, c: u64, k: u64) -> Option<f64> {
    if k == 0 || k > n || c > n {
        return None;
    }
    if n - c < k {
        return Some(1.0);
    }
    let all_fail: f64 = (n - c + 1..=n).map(|i| 1.0 - k as f64 / i as f64).product();
    Some(1.0 - all_fail)
}

#[cfg(test)]
mod tests {
    use super::pass_at_k;
    use proptest::prelude::*;

    /// The definition with exact binomials, for the small n where they fit in u128.
    fn by_definition(n: u64, c: u64, k: u64) -> f64 {
        fn choose(n: u64, k: u64) -> u128 {
            if k > n {
                return 0;
            }
            (0..k).fold(1u128, |acc, i| acc * u128::from(n - i) / u128::from(i + 1))
        }
        1.0 - choose(n - c, k) as f64 / choose(n, k) as f64
    }

    #[test]
    fn known_values() {
        let rounded = |value: Option<f64>| value.map(|value| (value * 1e9).round() / 1e9);
        assert_eq!(
            [
                pass_at_k(8, 4, 1),
                pass_at_k(8, 0, 8),
                pass_at_k(8, 1, 8),
                pass_at_k(4, 2, 2),
                pass_at_k(4, 2, 5),
                pass_at_k(4, 2, 0),
            ]
            .map(rounded),
            [
                Some(0.5),
                Some(0.0),
                Some(1.0),
                Some(0.833333333),
                None,
                None
            ]
        );
    }

    proptest! {
        /// Monotone in k, 0 without passes, 1 once every draw of k must hold a pass, equal to
        /// the definition where the binomials fit, and a probability even for huge n.
        #[test]
        fn the_estimator_keeps_its_definition(n in 1u64..60, pass_share in 0.0f64..=1.0, huge in 1_000u64..5_000_000) {
            let c = ((n as f64) * pass_share).floor() as u64;
            let mut previous = 0.0;
            for k in 1..=n {
                let value = pass_at_k(n, c, k).expect("1 <= k <= n");
                prop_assert!(value + 1e-12 >= previous, "n={} c={} k={}: {} < {}", n, c, k, value, previous);
                previous = value;
                if c == 0 {
                    prop_assert_eq!(value, 0.0);
                }
                if n - c < k {
                    prop_assert_eq!(value, 1.0);
                }
                prop_assert!((value - by_definition(n, c, k)).abs() < 1e-9, "n={} c={} k={}", n, c, k);
            }
            let value = pass_at_k(huge, huge / 3, 10).expect("k <= n");
            prop_assert!((0.0..=1.0).contains(&value));
        }
    }
}
