//! Time as mend writes it: whole milliseconds of a monotonic clock for the loop, and wall-clock
//! stamps for file names.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mend_core::Millis;

/// The clock of one session's `now`: whole milliseconds since its loop started. Every time the
/// core is told is on it — a streamed line's arrival, the moment an input is handled, the
/// deadline — so the reader of a body and the loop stamp alike.
#[derive(Debug, Clone, Copy)]
pub struct SessionClock {
    origin: Instant,
}

impl SessionClock {
    /// A clock whose zero is now.
    pub fn start() -> SessionClock {
        SessionClock {
            origin: Instant::now(),
        }
    }

    /// The time since the start.
    pub fn now(&self) -> Millis {
        Millis(millis(self.origin.elapsed()))
    }

    /// The instant a time on this clock falls at.
    pub fn instant(&self, at: Millis) -> Instant {
        self.origin + Duration::from_millis(at.0)
    }

    /// Where the clock started.
    pub fn origin(&self) -> Instant {
        self.origin
    }
}

/// A duration in whole milliseconds, as records and events carry it (saturating: no run lasts
/// `u64::MAX` ms).
pub fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// `20261202T131500Z`: sortable, and safe in a file name.
pub fn utc_stamp(now: SystemTime) -> String {
    let seconds = now
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    let days = i64::try_from(seconds / 86_400).unwrap_or(0);
    let of_day = seconds % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    )
}

/// Howard Hinnant's `civil_from_days`: days since 1970-01-01 to a proleptic Gregorian date.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month as u32, day as u32)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn stamps_known_instants() {
        let at = |seconds| UNIX_EPOCH + Duration::from_secs(seconds);
        assert_eq!(utc_stamp(at(0)), "19700101T000000Z");
        assert_eq!(utc_stamp(at(951_782_400)), "20000229T000000Z");
        assert_eq!(utc_stamp(at(1_796_217_300)), "20261202T131500Z");
    }
}
