//! Writing values in the YAML dialect that `sigs.k8s.io/yaml` prints: go-yaml v2's key order, its
//! choice of plain, quoted or block style for each string, and its folding at 80 columns.
//!
//! Tests use it to render diff text from objects and to check that what is written reads back
//! the same through drift-doctor's reader.

use serde_json::{Map, Number, Value};

use std::sync::OnceLock;

/// A decimal float as Go's `strconv.ParseFloat` takes it (digits, an optional fraction, an optional
/// exponent; at least one digit before the exponent).
fn is_decimal_float(s: &str) -> bool {
    static FLOAT: OnceLock<regex_lite::Regex> = OnceLock::new();
    FLOAT
        .get_or_init(|| {
            regex_lite::Regex::new(r"^([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?$")
                .expect("a valid pattern")
        })
        .is_match(s)
}

/// Line width at which go-yaml v2 (used by sigs.k8s.io/yaml) folds long scalars.
const BEST_WIDTH: usize = 80;

/// Serialise like `sigs.k8s.io/yaml.Marshal`: keys sorted (go-yaml's order), two-space indent, list
/// items not indented under their key, long scalars folded at 80 columns.
pub fn to_yaml(v: &Value) -> String {
    let mut out = String::new();
    match v {
        Value::Object(m) if !m.is_empty() => write_map(&mut out, m, 0, false),
        Value::Array(a) if !a.is_empty() => write_seq(&mut out, a, 0, false),
        other => {
            let mut col = 0;
            write_scalar(&mut out, other, 0, &mut col);
            out.push('\n');
        }
    }
    out
}

fn sorted_entries(m: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<(&String, &Value)> = m.iter().collect();
    entries.sort_by(|a, b| go_key_cmp(a.0, b.0));
    entries
}

fn write_map(out: &mut String, m: &Map<String, Value>, indent: usize, inline_first: bool) {
    for (n, (k, v)) in sorted_entries(m).into_iter().enumerate() {
        if n > 0 || !inline_first {
            push_spaces(out, indent);
        }
        let key = key_text(k);
        out.push_str(&key);
        out.push(':');
        match v {
            Value::Object(inner) if !inner.is_empty() => {
                out.push('\n');
                write_map(out, inner, indent + 2, false);
            }
            Value::Array(items) if !items.is_empty() => {
                out.push('\n');
                write_seq(out, items, indent, false);
            }
            _ => {
                let mut col = indent + key.chars().count() + 1;
                write_scalar(out, v, indent + 2, &mut col);
                out.push('\n');
            }
        }
    }
}

fn write_seq(out: &mut String, items: &[Value], indent: usize, inline_first: bool) {
    for (n, item) in items.iter().enumerate() {
        if n > 0 || !inline_first {
            push_spaces(out, indent);
        }
        out.push('-');
        match item {
            Value::Object(inner) if !inner.is_empty() => {
                out.push(' ');
                write_map(out, inner, indent + 2, true);
            }
            Value::Array(inner) if !inner.is_empty() => {
                out.push(' ');
                write_seq(out, inner, indent + 2, true);
            }
            _ => {
                let mut col = indent + 1;
                write_scalar(out, item, indent + 2, &mut col);
                out.push('\n');
            }
        }
    }
}

fn push_spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// Writes ` value` (with the separating space) for a scalar or an empty collection; `cont` is the
/// indentation of continuation lines, `col` the current column.
fn write_scalar(out: &mut String, v: &Value, cont: usize, col: &mut usize) {
    let text = match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_text(n),
        Value::Object(_) => "{}".to_string(),
        Value::Array(_) => "[]".to_string(),
        Value::String(s) => {
            write_string(out, s, cont, col);
            return;
        }
    };
    if *col > 0 {
        out.push(' ');
    }
    out.push_str(&text);
    *col += text.len() + 1;
}

fn number_text(n: &Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    match n.as_f64() {
        Some(f) => go_format_float(f),
        None => n.to_string(),
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`.
pub fn go_format_float(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    if !f.is_finite() {
        return if f.is_nan() {
            ".nan".into()
        } else if f > 0.0 {
            ".inf".into()
        } else {
            "-.inf".into()
        };
    }
    let sci = format!("{:e}", f);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    // Shortest formatting switches to the exponent form below 1e-4 and from 1e6 on.
    if !(-4..6).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let e = exp.unsigned_abs();
        if e < 10 {
            out.push('0');
        }
        out.push_str(&e.to_string());
        return out;
    }
    if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            for _ in digits.len()..int_len {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

fn key_text(k: &str) -> String {
    let style = match string_style(k) {
        Style::Literal => Style::Double,
        s => s,
    };
    let mut out = String::new();
    let mut col = 0;
    write_styled(&mut out, k, style, 0, &mut col, false);
    out
}

fn write_string(out: &mut String, s: &str, cont: usize, col: &mut usize) {
    let style = string_style(s);
    if *col > 0 {
        out.push(' ');
        *col += 1;
    }
    if style == Style::Literal {
        write_literal(out, s, cont);
        return;
    }
    write_styled(out, s, style, cont, col, true);
}

fn string_style(s: &str) -> Style {
    let a = analyze(s);
    if s.contains('\n') {
        return if a.block_allowed {
            Style::Literal
        } else {
            Style::Double
        };
    }
    if resolves_to_non_string(s) {
        return Style::Double;
    }
    if a.plain_allowed {
        Style::Plain
    } else if a.single_allowed {
        Style::Single
    } else {
        Style::Double
    }
}

struct Analysis {
    plain_allowed: bool,
    single_allowed: bool,
    block_allowed: bool,
}

fn is_printable(c: char) -> bool {
    let u = c as u32;
    u == 0x0A
        || (0x20..=0x7E).contains(&u)
        || u == 0x85
        || (0xA0..=0xD7FF).contains(&u)
        || ((0xE000..=0xFFFD).contains(&u) && u != 0xFEFF)
        || (0x10000..=0x10FFFF).contains(&u)
}

/// A simplified `yaml_emitter_analyze_scalar` (block context).
fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            plain_allowed: false,
            single_allowed: true,
            block_allowed: false,
        };
    }
    let chars: Vec<char> = s.chars().collect();
    let mut block_ind = s.starts_with("---") || s.starts_with("...");
    let mut special = false;
    let mut line_breaks = false;
    let mut space_break = false;
    let mut break_space = false;
    let leading_space = chars[0] == ' ';
    let leading_break = chars[0] == '\n';
    let trailing_space = chars[chars.len() - 1] == ' ';
    let trailing_break = chars[chars.len() - 1] == '\n';
    let mut preceded_ws = true;
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        let followed_ws = matches!(next, None | Some(' ' | '\t' | '\n'));
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => block_ind = true,
                '?' | ':' | '-' if followed_ws => block_ind = true,
                _ => {}
            }
        } else {
            match c {
                ':' if followed_ws => block_ind = true,
                '#' if preceded_ws => block_ind = true,
                _ => {}
            }
        }
        if !is_printable(c) || c == '\u{FEFF}' {
            special = true;
        }
        if c == '\n' {
            line_breaks = true;
            if i > 0 && chars[i - 1] == ' ' {
                space_break = true;
            }
        }
        if c == ' ' && i > 0 && chars[i - 1] == '\n' {
            break_space = true;
        }
        preceded_ws = matches!(c, ' ' | '\t' | '\n');
    }
    let plain_allowed = !(block_ind
        || leading_space
        || leading_break
        || trailing_space
        || trailing_break
        || line_breaks
        || space_break
        || break_space
        || special);
    let single_allowed = !(special || space_break || break_space);
    let block_allowed = !(special || space_break || trailing_space);
    Analysis {
        plain_allowed,
        single_allowed,
        block_allowed,
    }
}

/// Whether go-yaml v2 would read the plain text as something other than a string (then it is
/// double-quoted when written).
pub fn resolves_to_non_string(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "", "~", "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true",
        "True", "TRUE", "n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE",
        ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF", "<<",
    ];
    if WORDS.contains(&s) {
        return true;
    }
    let first = s.as_bytes()[0];
    if !(first.is_ascii_digit() || first == b'+' || first == b'-' || first == b'.') {
        return false;
    }
    let plain: String = s.chars().filter(|c| *c != '_').collect();
    go_parses_int(&plain)
        || go_parses_float(&plain)
        || looks_like_timestamp(s)
        || is_base60_float(s)
}

fn go_parses_int(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if body.is_empty() {
        return false;
    }
    let lower = body.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0x") {
        return !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit());
    }
    if let Some(o) = lower.strip_prefix("0o") {
        return !o.is_empty() && o.chars().all(|c| ('0'..='7').contains(&c));
    }
    if let Some(b) = lower.strip_prefix("0b") {
        return !b.is_empty() && b.chars().all(|c| c == '0' || c == '1');
    }
    if body.len() > 1 && body.starts_with('0') {
        return body.chars().all(|c| ('0'..='7').contains(&c));
    }
    body.chars().all(|c| c.is_ascii_digit())
}

fn go_parses_float(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let lower = body.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return true;
    }
    if lower.starts_with("0x") {
        return lower.contains('p');
    }
    is_decimal_float(body)
}

/// `2006-1-2`, `2006-1-2T15:4:5Z`, `2006-1-2 15:4:5.999` and friends (go-yaml v2 timestamps).
fn looks_like_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 8 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let mut i = 5;
    let take_digits = |i: &mut usize, max: usize| -> usize {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() && *i - start < max {
            *i += 1;
        }
        *i - start
    };
    if take_digits(&mut i, 2) == 0 || b.get(i) != Some(&b'-') {
        return false;
    }
    i += 1;
    if take_digits(&mut i, 2) == 0 {
        return false;
    }
    if i == b.len() {
        return true;
    }
    if !matches!(b[i], b'T' | b't' | b' ') {
        return false;
    }
    i += 1;
    for n in 0..3 {
        if take_digits(&mut i, 2) == 0 {
            return false;
        }
        if n < 2 {
            if b.get(i) != Some(&b':') {
                return false;
            }
            i += 1;
        }
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        take_digits(&mut i, 9);
    }
    match b.get(i) {
        None => true,
        Some(b'Z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            let rest = &s[i + 1..];
            rest.len() == 5 && rest.as_bytes()[2] == b':'
        }
        _ => false,
    }
}

fn is_base60_float(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if !body.contains(':') || !body.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        return false;
    }
    let (main, frac) = match body.split_once('.') {
        Some((m, f)) => (m, Some(f)),
        None => (body, None),
    };
    if frac.is_some_and(|f| !f.chars().all(|c| c.is_ascii_digit() || c == '_')) {
        return false;
    }
    let mut parts = main.split(':');
    let head = parts.next().unwrap_or("");
    if head.is_empty() || !head.chars().all(|c| c.is_ascii_digit() || c == '_') {
        return false;
    }
    parts.all(|p| {
        let b = p.as_bytes();
        match b.len() {
            1 => b[0].is_ascii_digit(),
            2 => (b'0'..=b'5').contains(&b[0]) && b[1].is_ascii_digit(),
            _ => false,
        }
    })
}

/// Plain, single- or double-quoted text, folded at spaces past column 80 when `allow_breaks`.
fn write_styled(
    out: &mut String,
    s: &str,
    style: Style,
    cont: usize,
    col: &mut usize,
    allow_breaks: bool,
) {
    let chars: Vec<char> = s.chars().collect();
    let len = chars.len();
    let mut spaces = false;
    let newline_then_indent = |out: &mut String, col: &mut usize| {
        out.push('\n');
        push_spaces(out, cont);
        *col = cont;
    };
    match style {
        Style::Plain | Style::Literal => {
            for (i, &c) in chars.iter().enumerate() {
                if c == ' ' {
                    let next_space = chars.get(i + 1) == Some(&' ');
                    if allow_breaks && !spaces && *col > BEST_WIDTH && !next_space {
                        newline_then_indent(out, col);
                    } else {
                        out.push(c);
                        *col += 1;
                    }
                    spaces = true;
                } else {
                    out.push(c);
                    *col += 1;
                    spaces = false;
                }
            }
        }
        Style::Single => {
            out.push('\'');
            *col += 1;
            for (i, &c) in chars.iter().enumerate() {
                if c == ' ' {
                    let next_space = chars.get(i + 1) == Some(&' ');
                    if allow_breaks
                        && !spaces
                        && *col > BEST_WIDTH
                        && i != 0
                        && i + 1 != len
                        && !next_space
                    {
                        newline_then_indent(out, col);
                    } else {
                        out.push(c);
                        *col += 1;
                    }
                    spaces = true;
                } else {
                    if c == '\'' {
                        out.push('\'');
                        *col += 1;
                    }
                    out.push(c);
                    *col += 1;
                    spaces = false;
                }
            }
            out.push('\'');
            *col += 1;
        }
        Style::Double => {
            out.push('"');
            *col += 1;
            for (i, &c) in chars.iter().enumerate() {
                if !is_printable(c) || c == '\u{FEFF}' || c == '\n' || c == '"' || c == '\\' {
                    let esc = match c {
                        '\0' => "\\0".to_string(),
                        '\u{7}' => "\\a".to_string(),
                        '\u{8}' => "\\b".to_string(),
                        '\t' => "\\t".to_string(),
                        '\n' => "\\n".to_string(),
                        '\u{b}' => "\\v".to_string(),
                        '\u{c}' => "\\f".to_string(),
                        '\r' => "\\r".to_string(),
                        '\u{1b}' => "\\e".to_string(),
                        '"' => "\\\"".to_string(),
                        '\\' => "\\\\".to_string(),
                        '\u{85}' => "\\N".to_string(),
                        '\u{a0}' => "\\_".to_string(),
                        '\u{2028}' => "\\L".to_string(),
                        '\u{2029}' => "\\P".to_string(),
                        other => {
                            let u = other as u32;
                            if u <= 0xFF {
                                format!("\\x{:02X}", u)
                            } else if u <= 0xFFFF {
                                format!("\\u{:04X}", u)
                            } else {
                                format!("\\U{:08X}", u)
                            }
                        }
                    };
                    *col += esc.len();
                    out.push_str(&esc);
                    spaces = false;
                } else if c == ' ' {
                    if allow_breaks && !spaces && *col > BEST_WIDTH && i != 0 && i + 1 != len {
                        newline_then_indent(out, col);
                        if chars.get(i + 1) == Some(&' ') {
                            out.push('\\');
                            *col += 1;
                        }
                    } else {
                        out.push(c);
                        *col += 1;
                    }
                    spaces = true;
                } else {
                    out.push(c);
                    *col += 1;
                    spaces = false;
                }
            }
            out.push('"');
            *col += 1;
        }
    }
}

fn write_literal(out: &mut String, s: &str, cont: usize) {
    out.push('|');
    if s.starts_with([' ', '\n']) {
        out.push('2');
    }
    if !s.ends_with('\n') {
        out.push('-');
    } else if s.len() == 1 || s[..s.len() - 1].ends_with('\n') {
        out.push('+');
    }
    let body = s.strip_suffix('\n').unwrap_or(s);
    for line in body.split('\n') {
        out.push('\n');
        if !line.is_empty() {
            push_spaces(out, cont);
            out.push_str(line);
        }
    }
}

/// go-yaml v2's map key order (`keyList.Less`): letters compare as runes, digit runs numerically,
/// non-letters sort before letters.
pub fn go_key_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let less = |x: &[char], y: &[char]| -> bool {
        let n = x.len().min(y.len());
        for i in 0..n {
            if x[i] == y[i] {
                continue;
            }
            let al = x[i].is_alphabetic();
            let bl = y[i].is_alphabetic();
            if al && bl {
                return x[i] < y[i];
            }
            if al || bl {
                return bl;
            }
            let mut an: u128 = 0;
            let mut bn: u128 = 0;
            if x[i] == '0' || y[i] == '0' {
                let mut j = i;
                while j > 0 {
                    j -= 1;
                    if !x[j].is_ascii_digit() {
                        break;
                    }
                    if x[j] != '0' {
                        an = 1;
                        bn = 1;
                        break;
                    }
                }
            }
            let mut ai = i;
            while ai < x.len() && x[ai].is_ascii_digit() {
                an = an
                    .saturating_mul(10)
                    .saturating_add(x[ai] as u128 - '0' as u128);
                ai += 1;
            }
            let mut bi = i;
            while bi < y.len() && y[bi].is_ascii_digit() {
                bn = bn
                    .saturating_mul(10)
                    .saturating_add(y[bi] as u128 - '0' as u128);
                bi += 1;
            }
            if an != bn {
                return an < bn;
            }
            if ai != bi {
                return ai < bi;
            }
            return x[i] < y[i];
        }
        x.len() < y.len()
    };
    if less(&ar, &br) {
        Ordering::Less
    } else if less(&br, &ar) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}
