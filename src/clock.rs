//! Time for generated files: the current time, or `SOURCE_DATE_EPOCH` for reproducible output, as dates.

/// `SOURCE_DATE_EPOCH` when set (reproducible builds), else `None`.
pub fn source_date_epoch() -> Option<i64> {
    std::env::var("SOURCE_DATE_EPOCH").ok().and_then(|s| s.trim().parse::<i64>().ok())
}

/// Seconds since the Unix epoch: `SOURCE_DATE_EPOCH` when set, else now.
pub fn now() -> i64 {
    source_date_epoch().unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
            .unwrap_or(0)
    })
}

/// Gregorian (year, month, day) of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// The year of a time in seconds since the epoch.
pub fn year(secs: i64) -> i64 {
    civil_from_days(secs.div_euclid(86_400)).0
}

/// Seconds since the epoch → RFC 3339 UTC (`2026-01-01T00:00:00Z`).
pub fn rfc3339(secs: i64) -> String {
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(year(20_454 * 86_400), 2026); // 2026-01-01
        assert_eq!(year(20_453 * 86_400), 2025); // 2025-12-31
        assert_eq!(year(-1), 1969);
        assert_eq!(rfc3339(1_767_225_600), "2026-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400 + 86_399), "2000-02-29T23:59:59Z");
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_667_928_397), "2022-11-08T17:26:37Z");
    }
}
