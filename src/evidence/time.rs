//! Times as events and logs write them: RFC 3339 instants, the ages
//! `kubectl` prints (`2m30s`, `3h`, `2d`), klog's month-day clock.

/// When something was said. An age is relative to when the table was
/// printed, a clock lacks the year (klog): each is compared only with its own
/// kind, so intervals come out right without knowing the day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum When {
    /// Seconds since 1970.
    At(i64),
    /// Seconds before the paste was printed.
    Ago(i64),
    /// klog's `MMDD hh:mm:ss`, as seconds from the start of a year.
    Clock(i64),
}

impl When {
    /// Seconds on one line of time, growing with time, with the kind: two
    /// whens compare only when their kinds agree.
    pub fn line(self) -> (u8, i64) {
        match self {
            When::At(s) => (0, s),
            // An age grows into the past.
            When::Ago(s) => (1, -s),
            When::Clock(s) => (2, s),
        }
    }

    /// Seconds from `self` to `later`, when both are on the same line.
    pub fn until(self, later: When) -> Option<i64> {
        let (a, b) = (self.line(), later.line());
        (a.0 == b.0).then_some(b.1 - a.1)
    }
}

/// Seconds since 1970 of an RFC 3339 time (`2024-05-01T10:00:00Z`,
/// fractions and offsets allowed); None when it is not one.
pub fn rfc3339_seconds(s: &str) -> Option<i64> {
    let b = s.trim().as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = b.get(from..from + len)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| part.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0')))
    };
    let sep = |at: usize, c: &[u8]| b.get(at).is_some_and(|x| c.contains(x));
    if !(sep(4, b"-") && sep(7, b"-") && sep(10, b"Tt ") && sep(13, b":") && sep(16, b":")) {
        return None;
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (h, mi, sec) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    if sep(i, b".") {
        i += 1;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    let offset = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(c @ (b'+' | b'-')) if i + 6 == b.len() && sep(i + 3, b":") => {
            let o = num(i + 1, 2)? * 3600 + num(i + 4, 2)? * 60;
            if *c == b'+' {
                o
            } else {
                -o
            }
        }
        _ => return None,
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + mi * 60 + sec - offset)
}

/// A duration as people say it (`9m30s`, `45s`, `2h5m`).
pub fn duration_words(seconds: u64) -> String {
    let (h, m, s) = (seconds / 3600, seconds % 3600 / 60, seconds % 60);
    match (h, m, s) {
        (0, 0, s) => format!("{s}s"),
        (0, m, 0) => format!("{m}m"),
        (0, m, s) => format!("{m}m{s}s"),
        (h, m, _) => format!("{h}h{m}m"),
    }
}

/// The age `kubectl` prints (`45s`, `2m30s`, `3h`, `5d`, `2y`), in seconds
/// (k8s.io/apimachinery `duration.HumanDuration`).
pub fn age_seconds(s: &str) -> Option<i64> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let mut total = 0i64;
    let mut num: Option<i64> = None;
    for c in s.chars() {
        if let Some(d) = c.to_digit(10) {
            num = Some(
                num.unwrap_or(0)
                    .checked_mul(10)?
                    .checked_add(i64::from(d))?,
            );
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'y' => 365 * 86_400,
            _ => return None,
        };
        total = total.checked_add(num.take()?.checked_mul(unit)?)?;
    }
    num.is_none().then_some(total)
}

/// klog's header time (`I0501 10:00:00.123456`): month, day and clock, as
/// seconds from the start of a (leap) year.
pub fn klog_clock(mmdd: &str, clock: &str) -> Option<i64> {
    let b = mmdd.as_bytes();
    if b.len() != 4 || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let month = i64::from(b[0] - b'0') * 10 + i64::from(b[1] - b'0');
    let day = i64::from(b[2] - b'0') * 10 + i64::from(b[3] - b'0');
    let mut parts = clock.split('.').next()?.split(':');
    let mut next = || parts.next()?.parse::<i64>().ok();
    let (h, m, sec) = (next()?, next()?, next()?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || h > 23 || m > 59 || sec > 60 {
        return None;
    }
    const BEFORE: [i64; 12] = [0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335];
    Some((BEFORE[(month - 1) as usize] + day - 1) * 86_400 + h * 3600 + m * 60 + sec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_times() {
        assert_eq!(rfc3339_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(rfc3339_seconds("2024-03-01T00:00:00Z"), Some(1_709_251_200));
        assert_eq!(
            rfc3339_seconds("2024-03-01T01:00:00.123+01:00"),
            Some(1_709_251_200)
        );
        assert_eq!(rfc3339_seconds("2024-03-01"), None);
        assert_eq!(rfc3339_seconds("2024-13-01T00:00:00Z"), None);
        assert_eq!(rfc3339_seconds("２０２４-03-01T00:00:00Z"), None);
    }

    #[test]
    fn durations() {
        assert_eq!(duration_words(45), "45s");
        assert_eq!(duration_words(570), "9m30s");
        assert_eq!(duration_words(600), "10m");
        assert_eq!(duration_words(7500), "2h5m");
    }

    #[test]
    fn ages_and_clocks() {
        assert_eq!(age_seconds("45s"), Some(45));
        assert_eq!(age_seconds("2m30s"), Some(150));
        assert_eq!(age_seconds("3d4h"), Some(3 * 86_400 + 4 * 3600));
        assert_eq!(age_seconds("<unknown>"), None);
        assert_eq!(age_seconds("5"), None);
        assert_eq!(age_seconds("m"), None);
        assert_eq!(klog_clock("0101", "00:00:10.5"), Some(10));
        assert_eq!(klog_clock("0301", "00:00:00"), Some(60 * 86_400));
        assert_eq!(klog_clock("1301", "00:00:00"), None);
        assert_eq!(When::Ago(300).until(When::Ago(60)), Some(240));
        assert_eq!(When::At(0).until(When::Ago(60)), None);
    }
}
