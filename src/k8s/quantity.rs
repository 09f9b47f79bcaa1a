//! Resource quantities: a port of `k8s.io/apimachinery/pkg/api/resource` (`ParseQuantity` and
//! `Quantity.String`), with an unbounded decimal mantissa where Go uses `inf.Dec`.

use serde_json::Value;
use std::cmp::Ordering;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum QFormat {
    DecimalExponent,
    BinarySI,
    DecimalSI,
}

/// Unsigned big integer, little-endian limbs in base 10^9 (no trailing zero limbs).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Big(Vec<u32>);

const LIMB: u64 = 1_000_000_000;

impl Big {
    fn from_u64(mut v: u64) -> Big {
        let mut d = Vec::new();
        while v > 0 {
            d.push((v % LIMB) as u32);
            v /= LIMB;
        }
        Big(d)
    }

    fn from_digits(digits: &[u8]) -> Big {
        let mut b = Big(Vec::new());
        for chunk in digits.chunks(9) {
            let mut mul = 1u32;
            let mut add = 0u32;
            for &c in chunk {
                mul *= 10;
                add = add * 10 + u32::from(c.wrapping_sub(b'0') % 10);
            }
            b.mul_small(mul);
            b.add_small(add);
        }
        b
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for d in self.0.iter_mut() {
            let v = u64::from(*d) * u64::from(m) + carry;
            *d = (v % LIMB) as u32;
            carry = v / LIMB;
        }
        while carry > 0 {
            self.0.push((carry % LIMB) as u32);
            carry /= LIMB;
        }
        self.trim();
    }

    fn add_small(&mut self, a: u32) {
        let mut carry = u64::from(a);
        for d in self.0.iter_mut() {
            if carry == 0 {
                break;
            }
            let v = u64::from(*d) + carry;
            *d = (v % LIMB) as u32;
            carry = v / LIMB;
        }
        while carry > 0 {
            self.0.push((carry % LIMB) as u32);
            carry /= LIMB;
        }
    }

    /// (self / d, self % d); d must be non-zero.
    fn divrem_small(&self, d: u32) -> (Big, u32) {
        let d = u64::from(d.max(1));
        let mut out = vec![0u32; self.0.len()];
        let mut rem = 0u64;
        for i in (0..self.0.len()).rev() {
            let cur = rem * LIMB + u64::from(self.0[i]);
            out[i] = (cur / d) as u32;
            rem = cur % d;
        }
        let mut b = Big(out);
        b.trim();
        (b, rem as u32)
    }

    fn mul_pow10(&mut self, n: u64) {
        for _ in 0..n / 9 {
            self.mul_small(LIMB as u32);
        }
        for _ in 0..n % 9 {
            self.mul_small(10);
        }
    }

    fn cmp_big(&self, o: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&o.0.len())
            .then_with(|| self.0.iter().rev().cmp(o.0.iter().rev()))
    }

    fn to_decimal(&self) -> String {
        let Some((top, rest)) = self.0.split_last() else {
            return "0".to_string();
        };
        let mut s = top.to_string();
        for limb in rest.iter().rev() {
            s.push_str(&format!("{limb:09}"));
        }
        s
    }
}

/// A parsed quantity: (-1)^neg * mant * 10^exp, in `format`.
struct Quantity {
    neg: bool,
    mant: Big,
    exp: i64,
    format: QFormat,
}

/// Result of `parseQuantityString`: sign, numerator digits (leading zeros stripped, "0" if none),
/// denominator digits and suffix.
struct QParts<'a> {
    positive: bool,
    num: &'a [u8],
    denom: &'a [u8],
    suffix: &'a [u8],
}

fn parse_quantity_string(s: &[u8]) -> Option<QParts<'_>> {
    let end = s.len();
    let mut positive = true;
    let mut pos = 0;
    if let Some(&c) = s.first() {
        if c == b'-' {
            positive = false;
            pos += 1;
        } else if c == b'+' {
            pos += 1;
        }
    }
    // strip leading zeros
    loop {
        if pos >= end {
            return Some(QParts {
                positive,
                num: b"0",
                denom: b"",
                suffix: b"",
            });
        }
        if s[pos] == b'0' {
            pos += 1;
        } else {
            break;
        }
    }
    // numerator
    let num_start = pos;
    while pos < end && s[pos].is_ascii_digit() {
        pos += 1;
    }
    let mut num = &s[num_start..pos];
    if pos >= end {
        if num.is_empty() {
            num = b"0";
        }
        return Some(QParts {
            positive,
            num,
            denom: b"",
            suffix: b"",
        });
    }
    if num.is_empty() {
        num = b"0";
    }
    // denominator
    let mut denom: &[u8] = b"";
    if s[pos] == b'.' {
        pos += 1;
        let d_start = pos;
        while pos < end && s[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &s[d_start..pos];
        if pos >= end {
            return Some(QParts {
                positive,
                num,
                denom,
                suffix: b"",
            });
        }
    }
    // suffix: letters, then an optional sign, then digits to the end
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&s[pos]) {
        pos += 1;
    }
    if pos < end && (s[pos] == b'-' || s[pos] == b'+') {
        pos += 1;
    }
    while pos < end && s[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < end {
        return None; // ErrFormatWrong
    }
    Some(QParts {
        positive,
        num,
        denom,
        suffix: &s[suffix_start..],
    })
}

/// (base, exponent, format) of a suffix.
fn interpret_suffix(suffix: &[u8]) -> Option<(u32, i64, QFormat)> {
    let dec = match suffix {
        b"n" => Some(-9),
        b"u" => Some(-6),
        b"m" => Some(-3),
        b"" => Some(0),
        b"k" => Some(3),
        b"M" => Some(6),
        b"G" => Some(9),
        b"T" => Some(12),
        b"P" => Some(15),
        b"E" => Some(18),
        _ => None,
    };
    if let Some(e) = dec {
        return Some((10, e, QFormat::DecimalSI));
    }
    let bin = match suffix {
        b"Ki" => Some(10),
        b"Mi" => Some(20),
        b"Gi" => Some(30),
        b"Ti" => Some(40),
        b"Pi" => Some(50),
        b"Ei" => Some(60),
        _ => None,
    };
    if let Some(e) = bin {
        return Some((2, e, QFormat::BinarySI));
    }
    if suffix.len() > 1 && (suffix[0] == b'e' || suffix[0] == b'E') {
        let text = std::str::from_utf8(&suffix[1..]).ok()?;
        let e: i64 = text.parse().ok()?;
        // Go keeps any int32; this port supports a sane range only.
        if !(-1000..=1000).contains(&e) {
            return None;
        }
        return Some((10, e, QFormat::DecimalExponent));
    }
    None
}

/// Canonical Kubernetes string form of a resource quantity, or None if it does not parse.
///
/// Follows `resource.ParseQuantity` + `Quantity.String()` (k8s.io/apimachinery): a value that is
/// already in canonical form keeps its exact input string; otherwise the mantissa is reduced and
/// the suffix chosen within the same format family (binary SI stays binary when exactly
/// representable and at least 1024, decimal SI stays decimal SI, "e" exponents stay exponents),
/// and values finer than nano are rounded up to 1n. Examples: "0.5" -> "500m", "1000m" -> "1",
/// "1024Mi" -> "1Gi", "1.25G" -> "1250M", 2 -> "2", "1e3" -> "1e3" (already canonical),
/// "1000e0" -> "1e3". (No rounding to milli precision: that is a ResourceList default of the
/// API server, not part of the string form.)
pub fn canonical_quantity(v: &Value) -> Option<String> {
    let text = match v {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.to_string()
            } else if let Some(u) = n.as_u64() {
                u.to_string()
            } else {
                let f = n.as_f64()?;
                if !f.is_finite() {
                    return None;
                }
                // plain notation, as a YAML/JSON author would write it
                format!("{f}")
            }
        }
        _ => return None,
    };
    canonical_quantity_str(&text)
}

fn canonical_quantity_str(s: &str) -> Option<String> {
    if s.is_empty() || s.len() > 1024 {
        return None;
    }
    if s == "0" {
        return Some("0".to_string());
    }
    let p = parse_quantity_string(s.as_bytes())?;
    let (base, exponent, format) = interpret_suffix(p.suffix)?;
    let (nlen, dlen) = (p.num.len() as i64, p.denom.len() as i64);

    // Fast path (int64), which also decides whether the input string is kept verbatim.
    let mut precision: i64 = -1;
    let mut scale: i64 = 0;
    let mut mantissa: i64 = 1;
    match format {
        QFormat::DecimalExponent | QFormat::DecimalSI => {
            scale = exponent;
            precision = 18 - (nlen + dlen);
        }
        QFormat::BinarySI => {
            if dlen == 0 && (0..63).contains(&exponent) {
                mantissa = 1i64 << exponent;
                precision = 15 - nlen - ((exponent as f32) * 3.0 / 10.0) as i64 - 1;
            }
        }
    }
    if precision >= 0 {
        scale -= dlen;
        if scale >= -9 {
            let mut shifted = Vec::with_capacity((nlen + dlen) as usize);
            shifted.extend_from_slice(p.num);
            shifted.extend_from_slice(p.denom);
            let value: i64 = std::str::from_utf8(&shifted).ok()?.parse().ok()?;
            if let Some(result) = value.checked_mul(mantissa) {
                let cached = match format {
                    QFormat::BinarySI => exponent % 10 == 0 && (value & 0x07) != 0,
                    _ => {
                        scale % 3 == 0
                            && !shifted.ends_with(b"000")
                            && shifted.first() != Some(&b'0')
                    }
                };
                if cached {
                    return Some(s.to_string());
                }
                let q = Quantity {
                    neg: !p.positive && result != 0,
                    mant: Big::from_u64(result.unsigned_abs()),
                    exp: scale,
                    format,
                };
                return Some(q.canonical());
            }
        }
    }

    // Slow path (inf.Dec).
    let mut digits = Vec::with_capacity((nlen + dlen) as usize);
    digits.extend_from_slice(p.num);
    digits.extend_from_slice(p.denom);
    let mut mant = Big::from_digits(&digits);
    let mut exp = -dlen;
    if base == 10 {
        exp += exponent;
    } else {
        for _ in 0..exponent {
            mant.mul_small(2);
        }
    }
    // Round non-zero values up (away from zero) to nano.
    if !mant.is_zero() && exp < -9 {
        let k = (-9 - exp) as u64;
        let mut lost = false;
        for _ in 0..k / 9 {
            let (d, r) = mant.divrem_small(LIMB as u32);
            lost |= r != 0;
            mant = d;
        }
        for _ in 0..k % 9 {
            let (d, r) = mant.divrem_small(10);
            lost |= r != 0;
            mant = d;
        }
        if lost {
            mant.add_small(1);
        }
        exp = -9;
    }
    let mut format = format;
    if format == QFormat::BinarySI {
        let max = Big::from_u64(i64::MAX as u64);
        if cmp_scaled(&mant, exp, &max, 0) == Ordering::Greater {
            mant = max;
            exp = 0;
        }
        if !mant.is_zero() && cmp_scaled(&mant, exp, &Big::from_u64(1), 0) == Ordering::Less {
            format = QFormat::DecimalSI;
        }
    }
    let q = Quantity {
        neg: !p.positive && !mant.is_zero(),
        mant,
        exp,
        format,
    };
    Some(q.canonical())
}

/// Compare a*10^ea with b*10^eb.
fn cmp_scaled(a: &Big, ea: i64, b: &Big, eb: i64) -> Ordering {
    let (mut a, mut b) = (a.clone(), b.clone());
    if ea > eb {
        a.mul_pow10((ea - eb) as u64);
    } else {
        b.mul_pow10((eb - ea) as u64);
    }
    a.cmp_big(&b)
}

impl Quantity {
    /// `Quantity.CanonicalizeBytes`.
    fn canonical(&self) -> String {
        if self.mant.is_zero() {
            return "0".to_string();
        }
        let sign = if self.neg { "-" } else { "" };
        let mut format = self.format;
        let mut integer: Option<Big> = None;
        if format == QFormat::BinarySI {
            if cmp_scaled(&self.mant, self.exp, &Big::from_u64(1024), 0) == Ordering::Less {
                format = QFormat::DecimalSI;
            } else {
                match as_integer(&self.mant, self.exp) {
                    Some(i) => integer = Some(i),
                    None => format = QFormat::DecimalSI,
                }
            }
        }
        if let Some(mut v) = integer {
            let mut e = 0;
            loop {
                let (d, r) = v.divrem_small(1024);
                if r != 0 || d.is_zero() {
                    break;
                }
                v = d;
                e += 1;
            }
            let suffix = match e {
                1 => "Ki",
                2 => "Mi",
                3 => "Gi",
                4 => "Ti",
                5 => "Pi",
                6 => "Ei",
                _ => "",
            };
            return format!("{sign}{}{suffix}", v.to_decimal());
        }
        let mut m = self.mant.clone();
        let mut e = self.exp;
        loop {
            let (d, r) = m.divrem_small(10);
            if r != 0 || d.is_zero() {
                break;
            }
            m = d;
            e += 1;
        }
        while e % 3 != 0 {
            m.mul_small(10);
            e -= 1;
        }
        let si = match e {
            -9 => Some("n"),
            -6 => Some("u"),
            -3 => Some("m"),
            0 => Some(""),
            3 => Some("k"),
            6 => Some("M"),
            9 => Some("G"),
            12 => Some("T"),
            15 => Some("P"),
            18 => Some("E"),
            _ => None,
        };
        let suffix = match (format, si) {
            (QFormat::DecimalSI, Some(s)) => s.to_string(),
            _ if e == 0 => String::new(),
            _ => format!("e{e}"),
        };
        format!("{sign}{}{suffix}", m.to_decimal())
    }
}

/// mant*10^exp as an integer, if it is one.
fn as_integer(mant: &Big, exp: i64) -> Option<Big> {
    let mut m = mant.clone();
    if exp >= 0 {
        m.mul_pow10(exp as u64);
        return Some(m);
    }
    for _ in 0..(-exp) {
        let (d, r) = m.divrem_small(10);
        if r != 0 {
            return None;
        }
        m = d;
    }
    Some(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cq(s: &str) -> Option<String> {
        canonical_quantity(&Value::from(s))
    }

    #[test]
    fn quantities() {
        for (i, o) in [
            ("0.5", "500m"),
            ("1000m", "1"),
            ("1024Mi", "1Gi"),
            ("3072Mi", "3Gi"),
            ("1000M", "1G"),
            ("1.25G", "1250M"),
            ("0.1", "100m"),
            ("2000m", "2"),
            ("100m", "100m"),
            ("0", "0"),
            // decimal exponent keeps its family; "1e3" is already canonical
            ("1e3", "1e3"),
            ("1000e0", "1e3"),
            ("1E3", "1E3"),
            ("1.5e3", "1500"),
            // from apimachinery's tests
            ("1Ki", "1Ki"),
            ("1Gi", "1Gi"),
            (".001Ki", "1024m"),
            (".000001Ki", "1024u"),
            (".000000001Ki", "1024n"),
            (".000000000001Ki", "2n"),
            ("1.5Gi", "1536Mi"),
            ("307200Ki", "300Mi"),
            ("1025024Mi", "1001Gi"),
            ("5000m", "5"),
            ("1080000000n", "1080m"),
            ("1.08", "1080m"),
            ("0.001T", "1G"),
            ("1000u", "1m"),
            (".001e12", "1e9"),
            ("0.001e0", "1e-3"),
            ("1000e-12", "1e-9"),
            ("00", "0"),
            ("1n", "1n"),
            ("0.9n", "1n"),
            ("1.5", "1500m"),
            ("-1.5", "-1500m"),
            ("-0.0", "0"),
            ("1024", "1024"),
            ("1025Ki", "1025Ki"),
            ("2048Ki", "2Mi"),
            ("8Ei", "9223372036854775807"),
            ("7Ei", "7Ei"),
            ("18446744073709551616", "18446744073709551616"),
            ("1000E", "1e21"),
            (" 1 ", "1"),
            ("12e1", "120"),
            ("1.0", "1"),
            ("Mi", "0"),
            ("+1", "+1"),
            ("01", "01"),
        ] {
            assert_eq!(cq(i).as_deref(), Some(o), "{i}");
        }
        assert_eq!(canonical_quantity(&json!(2)).as_deref(), Some("2"));
        assert_eq!(canonical_quantity(&json!(0.5)).as_deref(), Some("500m"));
        assert_eq!(canonical_quantity(&json!(0.25)).as_deref(), Some("250m"));
        assert_eq!(canonical_quantity(&json!(-3)).as_deref(), Some("-3"));
        assert_eq!(canonical_quantity(&json!(1.0e-7)).as_deref(), Some("100n"));
        for bad in [
            "", "abc", "1Gb", "1.2.3", "--1", "1 Gi", "1e", "1ki", "1e99999", "1m5", "1i",
        ] {
            assert_eq!(cq(bad), None, "{bad:?}");
        }
        assert_eq!(canonical_quantity(&json!(null)), None);
        assert_eq!(canonical_quantity(&json!(true)), None);
        assert_eq!(canonical_quantity(&json!({"a": 1})), None);
    }
}
