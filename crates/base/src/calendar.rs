//! Dates of the proleptic Gregorian calendar and Unix seconds, both ways (H. Hinnant's
//! algorithms), for the manifest's `source_date` and the zip timestamps.

/// A calendar date: (year, month 1-12, day 1-31).
pub type Date = (i64, i64, i64);

/// Days since 1970-01-01 of a date.
pub(crate) fn days_from_civil((y, m, d): Date) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day counted from 1970-01-01.
pub(crate) fn civil_from_days(days: i64) -> Date {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// The UTC date and (hour, minute, second) of Unix seconds.
pub(crate) fn civil_from_epoch(epoch: i64) -> (Date, (i64, i64, i64)) {
    let secs = epoch.rem_euclid(86_400);
    (
        civil_from_days(epoch.div_euclid(86_400)),
        (secs / 3600, secs % 3600 / 60, secs % 60),
    )
}

/// Parses `YYYY-MM-DDTHH:MM:SSZ` into Unix seconds (years 1980-2107, the range a zip can store).
pub fn parse_rfc3339_utc(s: &str) -> Result<i64, String> {
    let bad = || {
        format!(
            "expected YYYY-MM-DDTHH:MM:SSZ, got {:?}",
            crate::text::excerpt(s, 40)
        )
    };
    let b = s.as_bytes();
    if b.len() != 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[19] != b'Z' {
        return Err(bad());
    }
    let num = |r: std::ops::Range<usize>| {
        s.get(r)
            .filter(|t| t.bytes().all(|c| c.is_ascii_digit()))
            .and_then(|t| t.parse::<i64>().ok())
            .ok_or_else(bad)
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1980..=2107).contains(&y)
        || !(1..=12).contains(&m)
        || d < 1
        || hh > 23
        || mm > 59
        || ss > 59
    {
        return Err(bad());
    }
    let days = days_from_civil((y, m, d));
    if civil_from_days(days) != (y, m, d) {
        return Err(bad());
    }
    Ok(days * 86_400 + hh * 3600 + mm * 60 + ss)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip_and_match_known_epochs() {
        // `date -u -d 2026-11-30 +%s` = 1795996800; 2000-02-29 = 951782400.
        assert_eq!(days_from_civil((2026, 11, 30)) * 86_400, 1_795_996_800);
        assert_eq!(
            civil_from_epoch(951_782_400 + 3661),
            ((2000, 2, 29), (1, 1, 1))
        );
        for days in (-800_000..800_000).step_by(997) {
            assert_eq!(days_from_civil(civil_from_days(days)), days);
        }
    }

    #[test]
    fn only_real_dates_parse() {
        assert_eq!(parse_rfc3339_utc("2026-11-30T00:00:00Z"), Ok(1_795_996_800));
        for bad in [
            "2026-02-30T00:00:00Z",
            "2026-11-30 00:00:00Z",
            "1979-12-31T00:00:00Z",
            "2026-11-3+T00:00:00Z",
            "x",
        ] {
            assert!(parse_rfc3339_utc(bad).is_err(), "{bad}");
        }
    }
}
