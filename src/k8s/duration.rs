//! Go `time.Duration` text (`metav1.Duration` marshals with `Duration.String`).

/// `time.ParseDuration`, in nanoseconds.
pub(crate) fn parse_go_duration(s: &str) -> Option<i64> {
    let mut s = s.as_bytes();
    let mut neg = false;
    if let Some(&c @ (b'-' | b'+')) = s.first() {
        neg = c == b'-';
        s = &s[1..];
    }
    if s == b"0" {
        return Some(0);
    }
    if s.is_empty() {
        return None;
    }
    const LIMIT: u64 = 1 << 63;
    let mut d: u64 = 0;
    while !s.is_empty() {
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return None;
        }
        // leading int
        let mut v: u64 = 0;
        let mut i = 0;
        while i < s.len() && s[i].is_ascii_digit() {
            if v > LIMIT / 10 {
                return None;
            }
            v = v * 10 + u64::from(s[i] - b'0');
            if v > LIMIT {
                return None;
            }
            i += 1;
        }
        let pre = i > 0;
        s = &s[i..];
        // fraction
        let mut f: u64 = 0;
        let mut scale: f64 = 1.0;
        let mut post = false;
        if s.first() == Some(&b'.') {
            s = &s[1..];
            let mut i = 0;
            let mut overflow = false;
            while i < s.len() && s[i].is_ascii_digit() {
                if !overflow {
                    if f > (LIMIT - 1) / 10 {
                        overflow = true;
                    } else {
                        let y = f * 10 + u64::from(s[i] - b'0');
                        if y > LIMIT {
                            overflow = true;
                        } else {
                            f = y;
                            scale *= 10.0;
                        }
                    }
                }
                i += 1;
            }
            post = i > 0;
            s = &s[i..];
        }
        if !pre && !post {
            return None;
        }
        // unit
        let mut i = 0;
        while i < s.len() && !(s[i] == b'.' || s[i].is_ascii_digit()) {
            i += 1;
        }
        if i == 0 {
            return None;
        }
        let unit: u64 = match &s[..i] {
            b"ns" => 1,
            b"us" | b"\xC2\xB5s" | b"\xCE\xBCs" => 1_000, // "us", "µs" (U+00B5), "μs" (U+03BC)
            b"ms" => 1_000_000,
            b"s" => 1_000_000_000,
            b"m" => 60_000_000_000,
            b"h" => 3_600_000_000_000,
            _ => return None,
        };
        s = &s[i..];
        if v > LIMIT / unit {
            return None;
        }
        v *= unit;
        if f > 0 {
            v = v.checked_add((f as f64 * (unit as f64 / scale)) as u64)?;
            if v > LIMIT {
                return None;
            }
        }
        d = d.checked_add(v)?;
        if d > LIMIT {
            return None;
        }
    }
    if neg {
        return Some((d as i64).wrapping_neg());
    }
    if d > LIMIT - 1 {
        return None;
    }
    Some(d as i64)
}

/// `time.Duration.String`.
pub(super) fn format_go_duration(d: i64) -> String {
    fn frac(out: &mut Vec<u8>, mut v: u64, prec: usize) -> u64 {
        let mut print = false;
        for _ in 0..prec {
            let digit = (v % 10) as u8;
            print = print || digit != 0;
            if print {
                out.push(b'0' + digit);
            }
            v /= 10;
        }
        if print {
            out.push(b'.');
        }
        v
    }
    fn int(out: &mut Vec<u8>, mut v: u64) {
        if v == 0 {
            out.push(b'0');
            return;
        }
        while v > 0 {
            out.push(b'0' + (v % 10) as u8);
            v /= 10;
        }
    }
    let neg = d < 0;
    let mut u = d.unsigned_abs();
    let mut out: Vec<u8> = Vec::new(); // built backwards
    if u < 1_000_000_000 {
        out.push(b's');
        let prec;
        if u == 0 {
            return "0s".to_string();
        } else if u < 1_000 {
            prec = 0;
            out.push(b'n');
        } else if u < 1_000_000 {
            prec = 3;
            out.extend_from_slice(&[0xB5, 0xC2]); // "µ" reversed
        } else {
            prec = 6;
            out.push(b'm');
        }
        u = frac(&mut out, u, prec);
        int(&mut out, u);
    } else {
        out.push(b's');
        u = frac(&mut out, u, 9);
        int(&mut out, u % 60);
        u /= 60;
        if u > 0 {
            out.push(b'm');
            int(&mut out, u % 60);
            u /= 60;
            if u > 0 {
                out.push(b'h');
                int(&mut out, u);
            }
        }
    }
    if neg {
        out.push(b'-');
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use crate::k8s::normalize_as_type;
    use serde_json::Value;

    #[test]
    fn durations() {
        for (i, o) in [
            ("8760h", "8760h0m0s"),
            ("90s", "1m30s"),
            ("1h", "1h0m0s"),
            ("0", "0s"),
            ("0s", "0s"),
            ("1.5s", "1.5s"),
            ("500ms", "500ms"),
            ("1000ms", "1s"),
            ("1us", "1\u{b5}s"),
            ("-90m", "-1h30m0s"),
            ("1h30m45.5s", "1h30m45.5s"),
            ("2h45m", "2h45m0s"),
            ("100ns", "100ns"),
            ("1.5h", "1h30m0s"),
            ("1.h", "1h0m0s"),
            ("+5m", "5m0s"),
        ] {
            let mut v = Value::from(i);
            assert!(normalize_as_type("meta/v1/Duration", &mut v));
            assert_eq!(v, Value::from(o), "{i}");
        }
        for bad in ["", "1", "h", "1x", ".s", "-.s", "9999999999999999999h"] {
            let mut v = Value::from(bad);
            assert!(normalize_as_type("meta/v1/Duration", &mut v));
            assert_eq!(v, Value::from(bad), "{bad:?} must stay");
        }
    }
}
