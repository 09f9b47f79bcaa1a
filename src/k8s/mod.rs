//! Knowledge about Kubernetes built-in kinds that the diff needs.
//!
//! * The schema: for every built-in kind, which fields are lists and how they merge under
//!   strategic merge patch (merge keys, sets, atomic lists), which are maps, and which leaves are
//!   `Quantity` or `IntOrString`. The facts come from the Kubernetes OpenAPI definitions
//!   (PyPI `kubernetes-validate==1.37.0`), turned into `schema_data.json` by
//!   `scripts/gen_k8s_schema.py` and embedded here; the data is parsed once, lazily.
//! * Value canonicalisation the way Argo CD's `remarshal` does it: resource quantities in their
//!   canonical Kubernetes string form (`k8s.io/apimachinery` `resource.Quantity`), integral
//!   `IntOrString` numbers as integers, and Go `time.Duration` strings for `meta/v1/Duration`.
//! * API-server defaulting of built-in kinds, as a table of rules per schema type (so every
//!   place a `PodSpec`, `Container`, `Probe`... appears gets them), and `default_for` to explain
//!   a live-only value as "a server default".
//!
//! Everything here is pure (no I/O, no clock) and never panics on any input.

use serde_json::{Map, Number, Value};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The generated schema table (see `scripts/gen_k8s_schema.py` for the format).
static SCHEMA_JSON: &str = include_str!("schema_data.json");

const QUANTITY: &str = "io.k8s.apimachinery.pkg.api.resource.Quantity";
const INT_OR_STRING: &str = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";

/// Recursion guard for walks over values (the schema itself is recursive, e.g. JSONSchemaProps).
const MAX_DEPTH: usize = 200;

// ---------------------------------------------------------------------------------------------
// Schema
// ---------------------------------------------------------------------------------------------

/// How a list field merges under strategic merge patch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListStrategy {
    /// Replaced whole (no merge key, or x-kubernetes-list-type atomic).
    Atomic,
    /// Items matched by these merge key(s) (patch merge key first; list-map-keys when they are the key set).
    MergeByKey(&'static [&'static str]),
    /// A list of scalars merged as a set (patch strategy merge without key, or list-type set).
    Set,
}

#[derive(Debug)]
enum Node {
    /// A value the schema table does not describe further.
    Scalar,
    /// An object (or Quantity / IntOrString leaf) of `Schema::types[i]`.
    Type(u32),
    List {
        strategy: ListStrategy,
        item: Box<Node>,
    },
    Map(Box<Node>),
}

#[derive(Debug)]
struct TypeDef {
    name: &'static str,
    /// Sorted by field name.
    fields: Vec<(&'static str, Node)>,
}

impl TypeDef {
    fn field(&self, name: &str) -> Option<&Node> {
        self.fields
            .binary_search_by(|(n, _)| (*n).cmp(name))
            .ok()
            .map(|i| &self.fields[i].1)
    }
}

#[derive(Debug)]
struct Schema {
    #[allow(dead_code)]
    source: &'static str,
    /// kind -> [(group, type index)]
    kinds: HashMap<&'static str, Vec<(&'static str, u32)>>,
    types: Vec<TypeDef>,
    /// `Node::Type(i)` for every type, so a cursor can point at a type root.
    type_nodes: Vec<Node>,
    by_name: HashMap<&'static str, u32>,
}

fn schema() -> Option<&'static Schema> {
    static SCHEMA: OnceLock<Option<Schema>> = OnceLock::new();
    SCHEMA.get_or_init(|| parse_schema(SCHEMA_JSON)).as_ref()
}

/// Strings of the schema live as long as the program: they are leaked once, interned.
struct Interner(HashMap<String, &'static str>);

impl Interner {
    fn get(&mut self, s: &str) -> &'static str {
        if let Some(v) = self.0.get(s) {
            return v;
        }
        let leaked: &'static str = Box::leak(s.to_owned().into_boxed_str());
        self.0.insert(s.to_owned(), leaked);
        leaked
    }
}

fn parse_schema(text: &str) -> Option<Schema> {
    let doc: Value = serde_json::from_str(text).ok()?;
    let mut strs = Interner(HashMap::new());
    let source = strs.get(doc.get("source")?.as_str()?);
    let raw_types = doc.get("types")?.as_array()?;
    let ntypes = raw_types.len();
    let mut types = Vec::with_capacity(ntypes);
    let mut by_name = HashMap::with_capacity(ntypes);
    for (i, t) in raw_types.iter().enumerate() {
        let t = t.as_array()?;
        let name = strs.get(t.first()?.as_str()?);
        let mut fields = Vec::new();
        if let Some(obj) = t.get(1).and_then(Value::as_object) {
            for (fname, fnode) in obj {
                fields.push((strs.get(fname), parse_node(fnode, ntypes, &mut strs)?));
            }
        }
        fields.sort_by(|a, b| a.0.cmp(b.0));
        by_name.insert(name, i as u32);
        types.push(TypeDef { name, fields });
    }
    let mut kinds: HashMap<&'static str, Vec<(&'static str, u32)>> = HashMap::new();
    for k in doc.get("kinds")?.as_array()? {
        let k = k.as_array()?;
        let group = strs.get(k.first()?.as_str()?);
        let kind = strs.get(k.get(1)?.as_str()?);
        let idx = k.get(2)?.as_u64()?;
        if idx as usize >= ntypes {
            return None;
        }
        kinds.entry(kind).or_default().push((group, idx as u32));
    }
    let type_nodes = (0..ntypes as u32).map(Node::Type).collect();
    Some(Schema {
        source,
        kinds,
        types,
        type_nodes,
        by_name,
    })
}

fn parse_node(v: &Value, ntypes: usize, strs: &mut Interner) -> Option<Node> {
    match v {
        Value::Number(n) => {
            let i = n.as_u64()?;
            if i as usize >= ntypes {
                return None;
            }
            Some(Node::Type(i as u32))
        }
        Value::String(s) if s == "s" => Some(Node::Scalar),
        Value::Array(a) => {
            let tag = a.first()?.as_str()?;
            let item = Box::new(parse_node(a.get(1)?, ntypes, strs)?);
            match tag {
                "a" => Some(Node::List {
                    strategy: ListStrategy::Atomic,
                    item,
                }),
                "s" => Some(Node::List {
                    strategy: ListStrategy::Set,
                    item,
                }),
                "k" => {
                    let mut keys = Vec::new();
                    for k in &a[2..] {
                        keys.push(strs.get(k.as_str()?));
                    }
                    let strategy = if keys.is_empty() {
                        ListStrategy::Atomic
                    } else {
                        ListStrategy::MergeByKey(Box::leak(keys.into_boxed_slice()))
                    };
                    Some(Node::List { strategy, item })
                }
                "m" => Some(Node::Map(item)),
                _ => None,
            }
        }
        _ => None,
    }
}

fn type_def(i: u32) -> Option<&'static TypeDef> {
    schema()?.types.get(i as usize)
}

/// Legacy API groups that serve the same kinds as today's groups (versions never matter).
fn canonical_group<'a>(group: &'a str, kind: &str) -> &'a str {
    let group = group.split('/').next().unwrap_or(group);
    match (group, kind) {
        ("extensions", "Deployment" | "DaemonSet" | "ReplicaSet") => "apps",
        ("extensions", "Ingress" | "NetworkPolicy") => "networking.k8s.io",
        ("core", _) => "",
        _ => group,
    }
}

fn root_node(group: &str, kind: &str) -> Option<&'static Node> {
    let s = schema()?;
    let group = canonical_group(group, kind);
    let (_, idx) = s.kinds.get(kind)?.iter().find(|(g, _)| *g == group)?;
    s.type_nodes.get(*idx as usize)
}

/// A position inside a built-in kind's schema. Cheap to copy.
#[derive(Debug, Clone, Copy)]
pub struct Cursor {
    node: &'static Node,
}

/// The schema root of a built-in kind; None for custom resources / unknown kinds.
/// `group` is the API group without version ("" for core), e.g. ("apps","Deployment").
/// Also accepts legacy groups that map to the same kinds: "extensions" Deployment/DaemonSet/
/// ReplicaSet/Ingress/NetworkPolicy ("apps" v1beta1/v1beta2 are the same group anyway).
pub fn root(group: &str, kind: &str) -> Option<Cursor> {
    root_node(group, kind).map(|node| Cursor { node })
}

fn non_scalar(node: &'static Node) -> Option<Cursor> {
    match node {
        Node::Scalar => None,
        _ => Some(Cursor { node }),
    }
}

impl Cursor {
    /// Descend into a named field of an object type (or the value type of a map type when the field is a map key).
    pub fn field(self, name: &str) -> Option<Cursor> {
        match self.node {
            Node::Type(i) => non_scalar(type_def(*i)?.field(name)?),
            Node::Map(v) => non_scalar(v),
            _ => None,
        }
    }

    /// Descend into the items of a list (or the values of a map / additionalProperties).
    pub fn item(self) -> Option<Cursor> {
        match self.node {
            Node::List { item, .. } => non_scalar(item),
            Node::Map(v) => non_scalar(v),
            _ => None,
        }
    }

    /// The strategy of the list at this position (Atomic if this is not a known list).
    pub fn list_strategy(self) -> ListStrategy {
        match self.node {
            Node::List { strategy, .. } => *strategy,
            _ => ListStrategy::Atomic,
        }
    }

    pub fn is_list(self) -> bool {
        matches!(self.node, Node::List { .. })
    }

    /// additionalProperties-style map (labels, resources.limits, ...).
    pub fn is_map(self) -> bool {
        matches!(self.node, Node::Map(_))
    }

    /// io.k8s.apimachinery.pkg.api.resource.Quantity
    pub fn is_quantity(self) -> bool {
        self.type_name() == QUANTITY
    }

    pub fn is_int_or_string(self) -> bool {
        self.type_name() == INT_OR_STRING
    }

    /// The schema type at this position, e.g. "io.k8s.api.core.v1.Container";
    /// "" for lists, maps and plain scalars.
    pub fn type_name(self) -> &'static str {
        match self.node {
            Node::Type(i) => type_def(*i).map(|t| t.name).unwrap_or(""),
            _ => "",
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Normalisation (Argo CD remarshal / knownTypeFields)
// ---------------------------------------------------------------------------------------------

/// Canonicalise, in place, every Quantity leaf of a built-in kind (strings or numbers) to
/// `canonical_quantity` (unparsable values are kept), and integral IntOrString numbers such as
/// 80.0 to 80 (IntOrString keeps its JSON type: "80" stays a string).
/// Objects of kinds without a schema are left untouched.
pub fn normalize_known_types(group: &str, kind: &str, obj: &mut Value) {
    if let Some(node) = root_node(group, kind) {
        normalize_node(node, obj, 0);
    }
}

/// Same canonicalisation starting at a given type, for Argo CD's knownTypeFields on custom
/// resources. Type names as Argo CD writes them: "core/v1/PodSpec", "apps/v1/DeploymentSpec",
/// "core/v1/ResourceList", "core/Quantity", "meta/v1/Duration" (Go-style canonical durations:
/// "90s" -> "1m30s"). Returns false if the type name is unknown.
pub fn normalize_as_type(argo_type: &str, value: &mut Value) -> bool {
    match argo_type {
        "core/Quantity" | "core/v1/Quantity" | "resource/Quantity" => {
            canonicalize_quantity_in_place(value);
            return true;
        }
        "meta/v1/Duration" => {
            if let Some(d) = value.as_str().and_then(parse_go_duration) {
                *value = Value::String(format_go_duration(d));
            }
            return true;
        }
        "core/v1/ResourceList" => {
            if let Value::Object(m) = value {
                for v in m.values_mut() {
                    canonicalize_quantity_in_place(v);
                }
            }
            return true;
        }
        _ => {}
    }
    let Some(s) = schema() else { return false };
    let Some(full) = argo_type_name(argo_type) else {
        return false;
    };
    let Some(&idx) = s.by_name.get(full.as_str()) else {
        return false;
    };
    if let Some(node) = s.type_nodes.get(idx as usize) {
        normalize_node(node, value, 0);
    }
    // The typed round trip also drops zero values the API never stores.
    crate::normalize::drop_omitted_zero_values(value);
    true
}

/// "core/v1/PodSpec" -> "io.k8s.api.core.v1.PodSpec" (and meta / apiextensions equivalents).
fn argo_type_name(argo_type: &str) -> Option<String> {
    let mut parts = argo_type.split('/');
    let (group, version, kind) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || group.is_empty() || version.is_empty() || kind.is_empty() {
        return None;
    }
    let prefix = match group {
        "meta" => "io.k8s.apimachinery.pkg.apis.meta".to_string(),
        "apiextensions" => "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions".to_string(),
        "apiregistration" => "io.k8s.kube-aggregator.pkg.apis.apiregistration".to_string(),
        g => format!("io.k8s.api.{g}"),
    };
    Some(format!("{prefix}.{version}.{kind}"))
}

fn normalize_node(node: &Node, v: &mut Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match node {
        Node::Scalar => {}
        Node::Type(i) => {
            let Some(t) = type_def(*i) else { return };
            if t.name == QUANTITY {
                canonicalize_quantity_in_place(v);
            } else if t.name == INT_OR_STRING {
                normalize_int_or_string(v);
            } else if let Value::Object(m) = v {
                for (k, child) in m.iter_mut() {
                    if let Some(f) = t.field(k) {
                        normalize_node(f, child, depth + 1);
                    }
                }
            }
        }
        Node::List { item, .. } => {
            if let Value::Array(a) = v {
                for x in a {
                    normalize_node(item, x, depth + 1);
                }
            }
        }
        Node::Map(item) => {
            if let Value::Object(m) = v {
                for x in m.values_mut() {
                    normalize_node(item, x, depth + 1);
                }
            }
        }
    }
}

fn canonicalize_quantity_in_place(v: &mut Value) {
    if let Some(s) = canonical_quantity(v) {
        *v = Value::String(s);
    }
}

fn normalize_int_or_string(v: &mut Value) {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    let float = match v {
        Value::Number(n) if n.is_f64() => n.as_f64(),
        _ => None,
    };
    if let Some(f) = float.filter(|f| f.fract() == 0.0 && (-EXACT..=EXACT).contains(f)) {
        *v = Value::Number(Number::from(f as i64));
    }
}

// ---------------------------------------------------------------------------------------------
// Resource quantities (port of k8s.io/apimachinery/pkg/api/resource: ParseQuantity + String)
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Go time.Duration (metav1.Duration marshals with Duration.String)
// ---------------------------------------------------------------------------------------------

/// `time.ParseDuration`, in nanoseconds.
fn parse_go_duration(s: &str) -> Option<i64> {
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
fn format_go_duration(d: i64) -> String {
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

// ---------------------------------------------------------------------------------------------
// API-server defaults
// ---------------------------------------------------------------------------------------------

type Path = &'static [&'static str];
type Obj = Map<String, Value>;

/// What the object being defaulted is (for version- or kind-dependent rules).
struct Ctx {
    api_version: String,
    kind: String,
}

/// The value a rule writes.
#[derive(Clone, Copy)]
enum Def {
    Str(&'static str),
    Int(i64),
    Bool(bool),
    EmptyObject,
    /// A JSON literal.
    Json(&'static str),
    /// Computed from the object the rule belongs to; None writes nothing.
    Fn(fn(&Obj, &Ctx) -> Option<Value>),
}

/// When a rule applies (evaluated on the object the rule belongs to, after earlier rules ran).
#[derive(Clone, Copy)]
enum When {
    Always,
    /// The field at this path is unset (missing, null or "").
    Unset(Path),
    /// The field at this path is set and is an object.
    IsObject(Path),
    /// The field at this path is the string.
    Eq(Path, &'static str),
    /// The field at this path is one of the strings.
    In(Path, &'static [&'static str]),
    Test(fn(&Obj, &Ctx) -> bool),
}

/// One defaulting rule: if the field at `at` (relative to an object of the rule's type) is
/// unset and `when` holds, write `def` there (creating missing parent objects).
#[derive(Clone, Copy)]
struct Rule {
    at: Path,
    def: Def,
    when: When,
    /// Go non-pointer field: the zero value ("", 0, false, [] or {}) also counts as unset.
    zero_is_unset: bool,
}

/// Rule for a Go pointer field (only missing / null counts as unset).
const fn ptr(at: Path, def: Def) -> Rule {
    Rule {
        at,
        def,
        when: When::Always,
        zero_is_unset: false,
    }
}

/// Rule for a Go value field (the zero value counts as unset too).
const fn val(at: Path, def: Def) -> Rule {
    Rule {
        at,
        def,
        when: When::Always,
        zero_is_unset: true,
    }
}

impl Rule {
    const fn when(self, when: When) -> Rule {
        Rule {
            at: self.at,
            def: self.def,
            when,
            zero_is_unset: self.zero_is_unset,
        }
    }
}

use Def::{Bool, EmptyObject, Int, Json, Str};

const RU: &str = "RollingUpdate";

const DEPLOYMENT_SPEC: &[Rule] = &[
    ptr(&["replicas"], Int(1)),
    val(&["strategy", "type"], Str(RU)),
    ptr(&["strategy", "rollingUpdate", "maxUnavailable"], Str("25%"))
        .when(When::Eq(&["strategy", "type"], RU)),
    ptr(&["strategy", "rollingUpdate", "maxSurge"], Str("25%"))
        .when(When::Eq(&["strategy", "type"], RU)),
    ptr(&["revisionHistoryLimit"], Int(10)),
    ptr(&["progressDeadlineSeconds"], Int(600)),
];

const STATEFULSET_SPEC: &[Rule] = &[
    val(&["podManagementPolicy"], Str("OrderedReady")),
    // rollingUpdate: {} is created only when the type itself was empty
    ptr(&["updateStrategy", "rollingUpdate"], EmptyObject)
        .when(When::Unset(&["updateStrategy", "type"])),
    val(&["updateStrategy", "type"], Str(RU)),
    ptr(&["updateStrategy", "rollingUpdate", "partition"], Int(0))
        .when(When::Test(sts_partition_applies)),
    val(
        &["persistentVolumeClaimRetentionPolicy", "whenDeleted"],
        Str("Retain"),
    ),
    val(
        &["persistentVolumeClaimRetentionPolicy", "whenScaled"],
        Str("Retain"),
    ),
    ptr(&["replicas"], Int(1)),
    ptr(&["revisionHistoryLimit"], Int(10)),
];

const DAEMONSET_SPEC: &[Rule] = &[
    val(&["updateStrategy", "type"], Str(RU)),
    ptr(
        &["updateStrategy", "rollingUpdate", "maxUnavailable"],
        Int(1),
    )
    .when(When::Eq(&["updateStrategy", "type"], RU)),
    ptr(&["updateStrategy", "rollingUpdate", "maxSurge"], Int(0))
        .when(When::Eq(&["updateStrategy", "type"], RU)),
    ptr(&["revisionHistoryLimit"], Int(10)),
];

const REPLICA_COUNT: &[Rule] = &[ptr(&["replicas"], Int(1))];

const REPLICATION_CONTROLLER: &[Rule] = &[
    val(&["spec", "selector"], Def::Fn(rc_template_labels)),
    val(&["metadata", "labels"], Def::Fn(rc_template_labels)),
];

const JOB: &[Rule] = &[
    ptr(&["spec", "completions"], Int(1)).when(When::Test(job_no_counts)),
    ptr(&["spec", "parallelism"], Int(1)),
    ptr(&["spec", "backoffLimit"], Def::Fn(job_backoff_limit)),
    val(&["metadata", "labels"], Def::Fn(job_template_labels)),
    ptr(&["spec", "completionMode"], Str("NonIndexed")),
    ptr(&["spec", "suspend"], Bool(false)),
    ptr(
        &["spec", "podReplacementPolicy"],
        Def::Fn(job_pod_replacement_policy),
    ),
    ptr(&["spec", "manualSelector"], Bool(false)),
];

const POD_FAILURE_POLICY_ON_POD_CONDITIONS: &[Rule] =
    &[val(&["status"], Str("True")).when(When::Test(root_is_job))];

const CRONJOB_SPEC: &[Rule] = &[
    val(&["concurrencyPolicy"], Str("Allow")),
    ptr(&["suspend"], Bool(false)),
    ptr(&["successfulJobsHistoryLimit"], Int(3)),
    ptr(&["failedJobsHistoryLimit"], Int(1)),
];

const POD_SPEC: &[Rule] = &[
    val(&["dnsPolicy"], Str("ClusterFirst")),
    val(&["restartPolicy"], Str("Always")),
    ptr(&["securityContext"], EmptyObject),
    ptr(&["terminationGracePeriodSeconds"], Int(30)),
    val(&["schedulerName"], Str("default-scheduler")),
];

const CONTAINER: &[Rule] = &[
    val(&["imagePullPolicy"], Def::Fn(container_pull_policy)),
    val(&["terminationMessagePath"], Str("/dev/termination-log")),
    val(&["terminationMessagePolicy"], Str("File")),
];

const PROTOCOL_TCP: &[Rule] = &[val(&["protocol"], Str("TCP"))];
const PROTOCOL_TCP_PTR: &[Rule] = &[ptr(&["protocol"], Str("TCP"))];

const OBJECT_FIELD_SELECTOR: &[Rule] = &[val(&["apiVersion"], Str("v1"))];

/// Not a SetDefaults function: the zero Quantity of this value field is always serialised.
const RESOURCE_FIELD_SELECTOR: &[Rule] = &[ptr(&["divisor"], Str("0"))];

const PROBE: &[Rule] = &[
    val(&["timeoutSeconds"], Int(1)),
    val(&["periodSeconds"], Int(10)),
    val(&["successThreshold"], Int(1)),
    val(&["failureThreshold"], Int(3)),
];

const HTTP_GET_ACTION: &[Rule] = &[val(&["path"], Str("/")), val(&["scheme"], Str("HTTP"))];

/// Declarative `+default=""` on GRPCAction.service.
const GRPC_ACTION: &[Rule] = &[ptr(&["service"], Str(""))];

const VOLUME: &[Rule] = &[
    ptr(&["emptyDir"], EmptyObject).when(When::Test(volume_has_no_source)),
    val(&["image", "pullPolicy"], Def::Fn(image_volume_pull_policy))
        .when(When::IsObject(&["image"])),
];

const DEFAULT_MODE_420: &[Rule] = &[ptr(&["defaultMode"], Int(420))];

const SERVICE_ACCOUNT_TOKEN_PROJECTION: &[Rule] = &[ptr(&["expirationSeconds"], Int(3600))];

const HOST_PATH: &[Rule] = &[ptr(&["type"], Str(""))];

const SERVICE_SPEC: &[Rule] = &[
    val(&["sessionAffinity"], Str("None")),
    ptr(
        &["sessionAffinityConfig", "clientIP", "timeoutSeconds"],
        Int(10800),
    )
    .when(When::Eq(&["sessionAffinity"], "ClientIP")),
    val(&["type"], Str("ClusterIP")),
    val(&["externalTrafficPolicy"], Str("Cluster")).when(When::Test(service_externally_accessible)),
    ptr(&["internalTrafficPolicy"], Str("Cluster")).when(When::In(
        &["type"],
        &["ClusterIP", "NodePort", "LoadBalancer"],
    )),
    ptr(&["allocateLoadBalancerNodePorts"], Bool(true)).when(When::Eq(&["type"], "LoadBalancer")),
];

const SERVICE_PORT: &[Rule] = &[
    val(&["protocol"], Str("TCP")),
    val(&["targetPort"], Def::Fn(service_target_port)),
];

/// StatefulSet volumeClaimTemplates are serialised with their TypeMeta.
const PERSISTENT_VOLUME_CLAIM: &[Rule] = &[
    val(&["apiVersion"], Str("v1")),
    val(&["kind"], Str("PersistentVolumeClaim")),
];

const VOLUME_MODE_FILESYSTEM: &[Rule] = &[ptr(&["volumeMode"], Str("Filesystem"))];

const PERSISTENT_VOLUME_SPEC: &[Rule] = &[
    val(&["persistentVolumeReclaimPolicy"], Str("Retain")),
    ptr(&["volumeMode"], Str("Filesystem")),
];

const SECRET: &[Rule] = &[val(&["type"], Str("Opaque"))];

const NAMESPACE: &[Rule] = &[val(
    &["metadata", "labels", "kubernetes.io/metadata.name"],
    Def::Fn(namespace_name),
)];

const INGRESS_CLASS_PARAMETERS: &[Rule] = &[ptr(&["scope"], Str("Cluster"))];

const NETWORK_POLICY_SPEC: &[Rule] = &[val(&["policyTypes"], Def::Fn(network_policy_types))];

const HPA_SPEC: &[Rule] = &[
    ptr(&["minReplicas"], Int(1)),
    val(&["metrics"], Json(r#"[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}]"#))
        .when(When::Test(hpa_defaults_metrics)),
];

const HPA_BEHAVIOR: &[Rule] = &[
    ptr(&["scaleUp", "stabilizationWindowSeconds"], Int(0)),
    ptr(&["scaleUp", "selectPolicy"], Str("Max")),
    ptr(
        &["scaleUp", "policies"],
        Json(
            r#"[{"type":"Pods","value":4,"periodSeconds":15},{"type":"Percent","value":100,"periodSeconds":15}]"#,
        ),
    ),
    ptr(&["scaleDown", "selectPolicy"], Str("Max")),
    ptr(
        &["scaleDown", "policies"],
        Json(r#"[{"type":"Percent","value":100,"periodSeconds":15}]"#),
    ),
];

const VALIDATING_WEBHOOK: &[Rule] = &[
    ptr(&["failurePolicy"], Def::Fn(webhook_failure_policy)),
    ptr(&["matchPolicy"], Def::Fn(webhook_match_policy)),
    ptr(&["namespaceSelector"], EmptyObject),
    ptr(&["objectSelector"], EmptyObject),
    ptr(&["sideEffects"], Def::Fn(webhook_side_effects)),
    ptr(&["timeoutSeconds"], Def::Fn(webhook_timeout)),
    val(
        &["admissionReviewVersions"],
        Def::Fn(webhook_review_versions),
    ),
];

const MUTATING_WEBHOOK: &[Rule] = &[
    ptr(&["failurePolicy"], Def::Fn(webhook_failure_policy)),
    ptr(&["matchPolicy"], Def::Fn(webhook_match_policy)),
    ptr(&["namespaceSelector"], EmptyObject),
    ptr(&["objectSelector"], EmptyObject),
    ptr(&["sideEffects"], Def::Fn(webhook_side_effects)),
    ptr(&["timeoutSeconds"], Def::Fn(webhook_timeout)),
    ptr(&["reinvocationPolicy"], Str("Never")),
    val(
        &["admissionReviewVersions"],
        Def::Fn(webhook_review_versions),
    ),
];

const RULE_SCOPE: &[Rule] = &[ptr(&["scope"], Str("*"))];

const PORT_443: &[Rule] = &[ptr(&["port"], Int(443))];

const FAILURE_POLICY_FAIL: &[Rule] = &[ptr(&["failurePolicy"], Str("Fail"))];

const MATCH_RESOURCES: &[Rule] = &[
    ptr(&["matchPolicy"], Str("Equivalent")),
    ptr(&["namespaceSelector"], EmptyObject),
    ptr(&["objectSelector"], EmptyObject),
];

const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

const ROLE_REF: &[Rule] = &[val(&["apiGroup"], Str(RBAC_GROUP))];

const RBAC_SUBJECT: &[Rule] =
    &[val(&["apiGroup"], Str(RBAC_GROUP)).when(When::In(&["kind"], &["User", "Group"]))];

const CRD_SPEC: &[Rule] = &[
    val(&["names", "singular"], Def::Fn(crd_singular)),
    val(&["names", "listKind"], Def::Fn(crd_list_kind)),
    ptr(&["conversion"], Json(r#"{"strategy":"None"}"#)),
];

const STORAGE_CLASS: &[Rule] = &[
    ptr(&["reclaimPolicy"], Str("Delete")),
    ptr(&["volumeBindingMode"], Str("Immediate")),
];

/// Defaulting rules per schema type (sources: argocd-semantics.md section 7, and
/// kubernetes pkg/apis/*/v1/defaults.go).
const DEFAULTS: &[(&str, &[Rule])] = &[
    ("io.k8s.api.apps.v1.DeploymentSpec", DEPLOYMENT_SPEC),
    ("io.k8s.api.apps.v1.StatefulSetSpec", STATEFULSET_SPEC),
    ("io.k8s.api.apps.v1.DaemonSetSpec", DAEMONSET_SPEC),
    ("io.k8s.api.apps.v1.ReplicaSetSpec", REPLICA_COUNT),
    (
        "io.k8s.api.core.v1.ReplicationControllerSpec",
        REPLICA_COUNT,
    ),
    (
        "io.k8s.api.core.v1.ReplicationController",
        REPLICATION_CONTROLLER,
    ),
    ("io.k8s.api.batch.v1.Job", JOB),
    (
        "io.k8s.api.batch.v1.PodFailurePolicyOnPodConditionsPattern",
        POD_FAILURE_POLICY_ON_POD_CONDITIONS,
    ),
    ("io.k8s.api.batch.v1.CronJobSpec", CRONJOB_SPEC),
    ("io.k8s.api.core.v1.PodSpec", POD_SPEC),
    ("io.k8s.api.core.v1.Container", CONTAINER),
    ("io.k8s.api.core.v1.EphemeralContainer", CONTAINER),
    ("io.k8s.api.core.v1.ContainerPort", PROTOCOL_TCP),
    (
        "io.k8s.api.core.v1.ObjectFieldSelector",
        OBJECT_FIELD_SELECTOR,
    ),
    (
        "io.k8s.api.core.v1.ResourceFieldSelector",
        RESOURCE_FIELD_SELECTOR,
    ),
    ("io.k8s.api.core.v1.Probe", PROBE),
    ("io.k8s.api.core.v1.HTTPGetAction", HTTP_GET_ACTION),
    ("io.k8s.api.core.v1.GRPCAction", GRPC_ACTION),
    ("io.k8s.api.core.v1.Volume", VOLUME),
    ("io.k8s.api.core.v1.SecretVolumeSource", DEFAULT_MODE_420),
    ("io.k8s.api.core.v1.ConfigMapVolumeSource", DEFAULT_MODE_420),
    (
        "io.k8s.api.core.v1.DownwardAPIVolumeSource",
        DEFAULT_MODE_420,
    ),
    ("io.k8s.api.core.v1.ProjectedVolumeSource", DEFAULT_MODE_420),
    (
        "io.k8s.api.core.v1.ServiceAccountTokenProjection",
        SERVICE_ACCOUNT_TOKEN_PROJECTION,
    ),
    ("io.k8s.api.core.v1.HostPathVolumeSource", HOST_PATH),
    ("io.k8s.api.core.v1.ServiceSpec", SERVICE_SPEC),
    ("io.k8s.api.core.v1.ServicePort", SERVICE_PORT),
    (
        "io.k8s.api.core.v1.PersistentVolumeClaim",
        PERSISTENT_VOLUME_CLAIM,
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeClaimSpec",
        VOLUME_MODE_FILESYSTEM,
    ),
    (
        "io.k8s.api.core.v1.PersistentVolumeSpec",
        PERSISTENT_VOLUME_SPEC,
    ),
    ("io.k8s.api.core.v1.Secret", SECRET),
    ("io.k8s.api.core.v1.Namespace", NAMESPACE),
    ("io.k8s.api.core.v1.EndpointPort", PROTOCOL_TCP),
    (
        "io.k8s.api.networking.v1.IngressClassParametersReference",
        INGRESS_CLASS_PARAMETERS,
    ),
    (
        "io.k8s.api.networking.v1.NetworkPolicyPort",
        PROTOCOL_TCP_PTR,
    ),
    (
        "io.k8s.api.networking.v1.NetworkPolicySpec",
        NETWORK_POLICY_SPEC,
    ),
    (
        "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec",
        HPA_SPEC,
    ),
    (
        "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerBehavior",
        HPA_BEHAVIOR,
    ),
    (
        "io.k8s.api.admissionregistration.v1.ValidatingWebhook",
        VALIDATING_WEBHOOK,
    ),
    (
        "io.k8s.api.admissionregistration.v1.MutatingWebhook",
        MUTATING_WEBHOOK,
    ),
    (
        "io.k8s.api.admissionregistration.v1.RuleWithOperations",
        RULE_SCOPE,
    ),
    (
        "io.k8s.api.admissionregistration.v1.NamedRuleWithOperations",
        RULE_SCOPE,
    ),
    (
        "io.k8s.api.admissionregistration.v1.ServiceReference",
        PORT_443,
    ),
    (
        "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicySpec",
        FAILURE_POLICY_FAIL,
    ),
    (
        "io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicySpec",
        FAILURE_POLICY_FAIL,
    ),
    (
        "io.k8s.api.admissionregistration.v1.MatchResources",
        MATCH_RESOURCES,
    ),
    ("io.k8s.api.rbac.v1.RoleRef", ROLE_REF),
    ("io.k8s.api.rbac.v1.Subject", RBAC_SUBJECT),
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionSpec",
        CRD_SPEC,
    ),
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.ServiceReference",
        PORT_443,
    ),
    ("io.k8s.api.storage.v1.StorageClass", STORAGE_CLASS),
];

fn rules_for(type_name: &str) -> &'static [Rule] {
    DEFAULTS
        .iter()
        .find(|(t, _)| *t == type_name)
        .map(|(_, r)| *r)
        .unwrap_or(&[])
}

// --- named conditions and computed defaults ---

fn get_in<'a>(obj: &'a Obj, path: &[&str]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    let mut cur = obj.get(*first)?;
    for p in rest {
        cur = cur.as_object()?.get(*p)?;
    }
    Some(cur)
}

fn str_at<'a>(obj: &'a Obj, path: &[&str]) -> Option<&'a str> {
    get_in(obj, path)?.as_str()
}

fn is_unset(v: Option<&Value>, zero_is_unset: bool) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(v) if zero_is_unset => match v {
            Value::Number(n) => n.as_f64() == Some(0.0),
            Value::Bool(b) => !*b,
            Value::Array(a) => a.is_empty(),
            Value::Object(o) => o.is_empty(),
            _ => false,
        },
        Some(_) => false,
    }
}

fn sts_partition_applies(o: &Obj, _: &Ctx) -> bool {
    str_at(o, &["updateStrategy", "type"]) == Some(RU)
        && matches!(
            get_in(o, &["updateStrategy", "rollingUpdate"]),
            Some(Value::Object(_))
        )
}

fn non_empty_object(v: Option<&Value>) -> Option<Value> {
    match v {
        Some(Value::Object(m)) if !m.is_empty() => Some(Value::Object(m.clone())),
        _ => None,
    }
}

fn rc_template_labels(o: &Obj, _: &Ctx) -> Option<Value> {
    non_empty_object(get_in(o, &["spec", "template", "metadata", "labels"]))
}

fn job_template_labels(o: &Obj, _: &Ctx) -> Option<Value> {
    non_empty_object(get_in(o, &["spec", "template", "metadata", "labels"]))
}

fn job_no_counts(o: &Obj, _: &Ctx) -> bool {
    is_unset(get_in(o, &["spec", "completions"]), false)
        && is_unset(get_in(o, &["spec", "parallelism"]), false)
}

fn job_backoff_limit(o: &Obj, _: &Ctx) -> Option<Value> {
    if is_unset(get_in(o, &["spec", "backoffLimitPerIndex"]), false) {
        Some(Value::from(6))
    } else {
        Some(Value::from(i64::from(i32::MAX)))
    }
}

fn job_pod_replacement_policy(o: &Obj, _: &Ctx) -> Option<Value> {
    if is_unset(get_in(o, &["spec", "podFailurePolicy"]), false) {
        Some(Value::from("TerminatingOrFailed"))
    } else {
        Some(Value::from("Failed"))
    }
}

fn root_is_job(_: &Obj, ctx: &Ctx) -> bool {
    ctx.kind == "Job"
}

/// `parsers.ParseImageName`: the tag, "latest" when neither tag nor digest is given; None when
/// the reference does not parse (the API server then defaults IfNotPresent).
fn image_tag(image: &str) -> Option<String> {
    if image.is_empty() || image.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let (name, digest) = match image.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (image, None),
    };
    if let Some(d) = digest {
        let (alg, hex) = d.split_once(':')?;
        if alg.is_empty() || hex.len() < 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
    }
    let last_slash = name.rfind('/');
    let (repo, tag) = match name.rfind(':') {
        Some(i) if last_slash.is_none_or(|s| i > s) => (&name[..i], Some(&name[i + 1..])),
        _ => (name, None),
    };
    if repo.is_empty() {
        return None;
    }
    // the path after the registry domain must be lowercase
    let remainder = match repo.split_once('/') {
        Some((first, rest))
            if first.contains('.')
                || first.contains(':')
                || first == "localhost"
                || first.to_lowercase() != first =>
        {
            rest
        }
        _ => repo,
    };
    if remainder.is_empty() || remainder.to_lowercase() != remainder {
        return None;
    }
    match tag {
        Some(t) => {
            let ok = !t.is_empty()
                && t.len() <= 128
                && t.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-')
                && !t.starts_with('.')
                && !t.starts_with('-');
            if ok {
                Some(t.to_string())
            } else {
                None
            }
        }
        None if digest.is_none() => Some("latest".to_string()),
        None => Some(String::new()),
    }
}

fn pull_policy_for(image: Option<&str>) -> Value {
    match image.and_then(image_tag) {
        Some(t) if t == "latest" => Value::from("Always"),
        _ => Value::from("IfNotPresent"),
    }
}

fn container_pull_policy(o: &Obj, _: &Ctx) -> Option<Value> {
    Some(pull_policy_for(str_at(o, &["image"])))
}

fn image_volume_pull_policy(o: &Obj, _: &Ctx) -> Option<Value> {
    Some(pull_policy_for(str_at(o, &["image", "reference"])))
}

fn volume_has_no_source(o: &Obj, _: &Ctx) -> bool {
    o.iter().all(|(k, v)| k == "name" || v.is_null())
}

fn service_externally_accessible(o: &Obj, _: &Ctx) -> bool {
    match str_at(o, &["type"]) {
        Some("LoadBalancer" | "NodePort") => true,
        Some("ClusterIP") => {
            matches!(get_in(o, &["externalIPs"]), Some(Value::Array(a)) if !a.is_empty())
        }
        _ => false,
    }
}

fn service_target_port(o: &Obj, _: &Ctx) -> Option<Value> {
    match o.get("port") {
        Some(Value::Number(n)) => Some(Value::Number(n.clone())),
        _ => None,
    }
}

fn namespace_name(o: &Obj, _: &Ctx) -> Option<Value> {
    match str_at(o, &["metadata", "name"]) {
        Some(n) if !n.is_empty() => Some(Value::from(n)),
        _ => None,
    }
}

fn network_policy_types(o: &Obj, _: &Ctx) -> Option<Value> {
    let mut types = vec![Value::from("Ingress")];
    if matches!(o.get("egress"), Some(Value::Array(a)) if !a.is_empty()) {
        types.push(Value::from("Egress"));
    }
    Some(Value::Array(types))
}

fn hpa_defaults_metrics(_: &Obj, ctx: &Ctx) -> bool {
    // autoscaling/v1 has no metrics; v2beta1 defaulted a differently shaped metric
    !matches!(
        ctx.api_version.as_str(),
        "autoscaling/v1" | "autoscaling/v2beta1"
    )
}

fn webhook_is_v1beta1(ctx: &Ctx) -> bool {
    ctx.api_version == "admissionregistration.k8s.io/v1beta1"
}

fn webhook_failure_policy(_: &Obj, ctx: &Ctx) -> Option<Value> {
    Some(Value::from(if webhook_is_v1beta1(ctx) {
        "Ignore"
    } else {
        "Fail"
    }))
}

fn webhook_match_policy(_: &Obj, ctx: &Ctx) -> Option<Value> {
    Some(Value::from(if webhook_is_v1beta1(ctx) {
        "Exact"
    } else {
        "Equivalent"
    }))
}

fn webhook_side_effects(_: &Obj, ctx: &Ctx) -> Option<Value> {
    webhook_is_v1beta1(ctx).then(|| Value::from("Unknown"))
}

fn webhook_timeout(_: &Obj, ctx: &Ctx) -> Option<Value> {
    Some(Value::from(if webhook_is_v1beta1(ctx) { 30 } else { 10 }))
}

fn webhook_review_versions(_: &Obj, ctx: &Ctx) -> Option<Value> {
    webhook_is_v1beta1(ctx).then(|| Value::Array(vec![Value::from("v1beta1")]))
}

fn crd_singular(o: &Obj, _: &Ctx) -> Option<Value> {
    match str_at(o, &["names", "kind"]) {
        Some(k) if !k.is_empty() => Some(Value::from(k.to_lowercase())),
        _ => None,
    }
}

fn crd_list_kind(o: &Obj, _: &Ctx) -> Option<Value> {
    match str_at(o, &["names", "kind"]) {
        Some(k) if !k.is_empty() => Some(Value::from(format!("{k}List"))),
        _ => None,
    }
}

// --- the walker ---

impl When {
    fn holds(&self, o: &Obj, ctx: &Ctx) -> bool {
        match self {
            When::Always => true,
            When::Unset(p) => is_unset(get_in(o, p), false),
            When::IsObject(p) => matches!(get_in(o, p), Some(Value::Object(_))),
            When::Eq(p, s) => str_at(o, p) == Some(*s),
            When::In(p, set) => str_at(o, p).is_some_and(|v| set.contains(&v)),
            When::Test(f) => f(o, ctx),
        }
    }
}

impl Def {
    fn value(&self, o: &Obj, ctx: &Ctx) -> Option<Value> {
        match self {
            Def::Str(s) => Some(Value::from(*s)),
            Def::Int(i) => Some(Value::from(*i)),
            Def::Bool(b) => Some(Value::Bool(*b)),
            Def::EmptyObject => Some(Value::Object(Map::new())),
            Def::Json(j) => serde_json::from_str(j).ok(),
            Def::Fn(f) => f(o, ctx),
        }
    }
}

/// Writes `v` at `path` below `o`, creating missing (or null) parent objects.
fn set_in(o: &mut Obj, path: &[&str], v: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut cur = o;
    for p in parents {
        let slot = cur.entry(p.to_string()).or_insert(Value::Null);
        if slot.is_null() {
            *slot = Value::Object(Map::new());
        }
        match slot {
            Value::Object(m) => cur = m,
            _ => return,
        }
    }
    cur.insert(last.to_string(), v);
}

fn apply_rules(rules: &[Rule], o: &mut Obj, ctx: &Ctx) {
    for rule in rules {
        if !is_unset(get_in(o, rule.at), rule.zero_is_unset) {
            continue;
        }
        // a non-object where a parent object is needed: leave the garbage alone
        if let Some((_, parents)) = rule.at.split_last() {
            let blocked = (1..=parents.len()).any(
                |n| matches!(get_in(o, &parents[..n]), Some(v) if !v.is_object() && !v.is_null()),
            );
            if blocked {
                continue;
            }
        }
        if !rule.when.holds(o, ctx) {
            continue;
        }
        if let Some(v) = rule.def.value(o, ctx) {
            set_in(o, rule.at, v);
        }
    }
}

fn default_node(node: &Node, v: &mut Value, ctx: &Ctx, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match node {
        Node::Scalar => {}
        Node::Type(i) => {
            let Some(t) = type_def(*i) else { return };
            if let Value::Object(m) = v {
                apply_rules(rules_for(t.name), m, ctx);
                for (k, child) in m.iter_mut() {
                    if let Some(f) = t.field(k) {
                        default_node(f, child, ctx, depth + 1);
                    }
                }
            }
        }
        Node::List { item, .. } => {
            if let Value::Array(a) = v {
                for x in a {
                    default_node(item, x, ctx, depth + 1);
                }
            }
        }
        Node::Map(item) => {
            if let Value::Object(m) = v {
                for x in m.values_mut() {
                    default_node(item, x, ctx, depth + 1);
                }
            }
        }
    }
}

fn ctx_of(kind: &str, obj: &Value) -> Ctx {
    Ctx {
        api_version: obj
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        kind: kind.to_string(),
    }
}

/// Fill, in place, the fields the Kubernetes API server defaults when they are absent, for
/// built-in kinds (no-op for others). Only adds missing (or null / empty-string) fields, never
/// changes present ones. The rules live in a table per schema type, so every place a type
/// appears (PodSpec in all pod templates, Container, Probe, ServicePort, webhooks...) gets them.
pub fn apply_defaults(group: &str, kind: &str, obj: &mut Value) {
    if let Some(node) = root_node(group, kind) {
        let ctx = ctx_of(kind, obj);
        default_node(node, obj, &ctx, 0);
    }
}

// --- explaining a value as a default ---

fn parse_pointer(pointer: &str) -> Option<Vec<String>> {
    let rest = pointer.strip_prefix('/')?;
    Some(
        rest.split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect(),
    )
}

fn get_tokens<'a>(v: &'a Value, tokens: &[String]) -> Option<&'a Value> {
    let mut cur = v;
    for t in tokens {
        cur = match cur {
            Value::Object(m) => m.get(t.as_str())?,
            Value::Array(a) => a.get(array_index(t)?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn array_index(t: &str) -> Option<usize> {
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) || (t.len() > 1 && t.starts_with('0'))
    {
        return None;
    }
    t.parse().ok()
}

/// Removes the value at `tokens` (an object member only); returns whether it was there.
fn remove_tokens(v: &mut Value, tokens: &[String]) -> bool {
    let Some((last, parents)) = tokens.split_last() else {
        return false;
    };
    let mut cur = v;
    for t in parents {
        cur = match cur {
            Value::Object(m) => match m.get_mut(t.as_str()) {
                Some(x) => x,
                None => return false,
            },
            Value::Array(a) => match array_index(t).and_then(|i| a.get_mut(i)) {
                Some(x) => x,
                None => return false,
            },
            _ => return false,
        };
    }
    match cur {
        Value::Object(m) => m.remove(last.as_str()).is_some(),
        _ => false,
    }
}

/// The default the API server would write at `tokens` given the rest of `obj`.
fn default_at(group: &str, kind: &str, obj: &Value, tokens: &[String]) -> Option<Value> {
    let (_, parents) = tokens.split_last()?;
    // positions of list items shift when removed; their list is explained as a whole instead
    if matches!(get_tokens(obj, parents), Some(Value::Array(_))) {
        return None;
    }
    let mut probe = obj.clone();
    remove_tokens(&mut probe, tokens);
    // Job: completions and parallelism are defaulted together when both are unset
    if root(group, kind).map(|c| c.type_name()) == Some("io.k8s.api.batch.v1.Job")
        && tokens.len() == 2
        && tokens[0] == "spec"
        && tokens[1] == "completions"
        && get_tokens(&probe, &["spec".to_string(), "parallelism".to_string()])
            == Some(&Value::from(1))
    {
        remove_tokens(&mut probe, &["spec".to_string(), "parallelism".to_string()]);
    }
    apply_defaults(group, kind, &mut probe);
    get_tokens(&probe, tokens).cloned()
}

/// Whether a field at this JSON pointer (RFC 6901, list indices numeric) of this kind is one
/// apply_defaults can fill, and the default it would write given the object (None if not a
/// defaulted field). `obj` is the live object (for conditional defaults such as
/// imagePullPolicy). A position inside a defaulted object or list (e.g. `/spec/strategy/type`,
/// `/spec/metrics/0/resource/name`) is answered from the default of its nearest defaulted
/// ancestor.
pub fn default_for(group: &str, kind: &str, obj: &Value, pointer: &str) -> Option<Value> {
    root_node(group, kind)?;
    let tokens = parse_pointer(pointer)?;
    if tokens.is_empty() || tokens.len() > MAX_DEPTH {
        return None;
    }
    if let Some(dv) = default_at(group, kind, obj, &tokens) {
        return Some(dv);
    }
    // An ancestor counts only when its whole live value is exactly its default.
    for n in (1..tokens.len()).rev() {
        let prefix = &tokens[..n];
        match default_at(group, kind, obj, prefix) {
            Some(dv) if get_tokens(obj, prefix) == Some(&dv) => {
                return get_tokens(&dv, &tokens[n..]).cloned()
            }
            _ => {}
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn path(group: &str, kind: &str, p: &[&str]) -> Cursor {
        let mut c = root(group, kind).unwrap_or_else(|| panic!("no root for {group}/{kind}"));
        for seg in p {
            c = if *seg == "[]" {
                c.item()
                    .unwrap_or_else(|| panic!("no item at {seg} in {p:?}"))
            } else {
                c.field(seg)
                    .unwrap_or_else(|| panic!("no field {seg} in {p:?}"))
            };
        }
        c
    }

    #[test]
    fn schema_parses_and_names_its_source() {
        let s = schema().expect("embedded schema parses");
        assert!(s.source.contains("kubernetes-validate==1.37.0"));
        assert!(s.types.len() > 400);
        assert!(s.kinds.len() > 60);
    }

    #[test]
    fn roots_of_builtin_kinds() {
        assert_eq!(
            root("apps", "Deployment").unwrap().type_name(),
            "io.k8s.api.apps.v1.Deployment"
        );
        assert_eq!(
            root("extensions", "Deployment").unwrap().type_name(),
            "io.k8s.api.apps.v1.Deployment"
        );
        assert_eq!(
            root("extensions", "Ingress").unwrap().type_name(),
            "io.k8s.api.networking.v1.Ingress"
        );
        assert_eq!(
            root("", "Service").unwrap().type_name(),
            "io.k8s.api.core.v1.Service"
        );
        assert_eq!(
            root("autoscaling", "HorizontalPodAutoscaler")
                .unwrap()
                .type_name(),
            "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"
        );
        assert_eq!(
            root("apiextensions.k8s.io", "CustomResourceDefinition")
                .unwrap()
                .type_name(),
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"
        );
        assert!(root("argoproj.io", "Rollout").is_none());
        assert!(root("apps", "Service").is_none());
        assert!(root("", "DeploymentList").is_none());
        assert!(root("", "").is_none());
    }

    #[test]
    fn merge_keys() {
        let containers = path(
            "apps",
            "Deployment",
            &["spec", "template", "spec", "containers"],
        );
        assert!(containers.is_list());
        assert_eq!(
            containers.list_strategy(),
            ListStrategy::MergeByKey(&["name"])
        );
        let c = containers.item().unwrap();
        assert_eq!(c.type_name(), "io.k8s.api.core.v1.Container");
        match c.field("ports").unwrap().list_strategy() {
            ListStrategy::MergeByKey(k) => assert_eq!(k[0], "containerPort"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            c.field("env").unwrap().list_strategy(),
            ListStrategy::MergeByKey(&["name"])
        );
        assert_eq!(
            c.field("args").unwrap().list_strategy(),
            ListStrategy::Atomic
        );
        let pod = path("apps", "Deployment", &["spec", "template", "spec"]);
        assert_eq!(
            pod.field("volumes").unwrap().list_strategy(),
            ListStrategy::MergeByKey(&["name"])
        );
        assert_eq!(
            pod.field("tolerations").unwrap().list_strategy(),
            ListStrategy::Atomic
        );
        assert_eq!(
            pod.field("imagePullSecrets").unwrap().list_strategy(),
            ListStrategy::MergeByKey(&["name"])
        );
        match path("", "Service", &["spec", "ports"]).list_strategy() {
            ListStrategy::MergeByKey(k) => assert_eq!(k[0], "port"),
            other => panic!("{other:?}"),
        }
        for kind in [
            "MutatingWebhookConfiguration",
            "ValidatingWebhookConfiguration",
        ] {
            let w = path("admissionregistration.k8s.io", kind, &["webhooks"]);
            assert_eq!(w.list_strategy(), ListStrategy::MergeByKey(&["name"]));
        }
        assert_eq!(
            path("rbac.authorization.k8s.io", "ClusterRole", &["rules"]).list_strategy(),
            ListStrategy::Atomic
        );
        assert_eq!(
            path("", "Pod", &["metadata", "finalizers"]).list_strategy(),
            ListStrategy::Set
        );
        // not a list
        assert_eq!(
            path("", "Pod", &["spec"]).list_strategy(),
            ListStrategy::Atomic
        );
        assert!(!path("", "Pod", &["spec"]).is_list());
        // every pod template
        for (g, k, p) in [
            ("apps", "StatefulSet", &["spec", "template", "spec"][..]),
            ("apps", "DaemonSet", &["spec", "template", "spec"][..]),
            ("apps", "ReplicaSet", &["spec", "template", "spec"][..]),
            (
                "",
                "ReplicationController",
                &["spec", "template", "spec"][..],
            ),
            ("batch", "Job", &["spec", "template", "spec"][..]),
            (
                "batch",
                "CronJob",
                &["spec", "jobTemplate", "spec", "template", "spec"][..],
            ),
            ("", "PodTemplate", &["template", "spec"][..]),
        ] {
            assert_eq!(
                path(g, k, p).type_name(),
                "io.k8s.api.core.v1.PodSpec",
                "{k}"
            );
        }
    }

    #[test]
    fn maps_quantities_int_or_string() {
        let res = path(
            "apps",
            "Deployment",
            &["spec", "template", "spec", "containers", "[]", "resources"],
        );
        let limits = res.field("limits").unwrap();
        assert!(limits.is_map());
        assert!(limits.item().unwrap().is_quantity());
        assert!(limits.field("cpu").unwrap().is_quantity());
        assert!(path("", "Pod", &["metadata", "labels"]).is_map());
        assert!(path("", "Pod", &["metadata", "labels"]).item().is_none());
        assert!(path("", "Service", &["spec", "ports", "[]", "targetPort"]).is_int_or_string());
        assert!(path(
            "apps",
            "Deployment",
            &["spec", "strategy", "rollingUpdate", "maxSurge"]
        )
        .is_int_or_string());
        assert!(path(
            "",
            "PersistentVolumeClaim",
            &["spec", "resources", "requests", "storage"]
        )
        .is_quantity());
        let c = path("", "Pod", &["spec"]);
        assert!(c.field("nodeName").is_none());
        assert!(c.field("nope").is_none());
        assert!(!c.is_map());
        assert!(!c.is_quantity());
        assert_eq!(path("", "Pod", &["spec", "containers"]).type_name(), "");
    }

    #[test]
    fn every_defaults_type_exists() {
        let s = schema().unwrap();
        for (t, rules) in DEFAULTS {
            assert!(s.by_name.contains_key(t), "defaults for unknown type {t}");
            assert!(!rules.is_empty());
        }
    }

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

    #[test]
    fn normalize_known_and_as_type() {
        let mut d = json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "spec": {
                "replicas": 2,
                "strategy": {"rollingUpdate": {"maxSurge": 1.0, "maxUnavailable": "25%"}},
                "template": {"spec": {"containers": [{
                    "name": "a", "image": "x",
                    "resources": {"limits": {"cpu": 0.5, "memory": "1024Mi"}, "requests": {"cpu": "bogus"}},
                    "ports": [{"containerPort": 80.0}],
                    "livenessProbe": {"httpGet": {"port": 8080.0, "path": "/"}}
                }]}}
            }
        });
        normalize_known_types("apps", "Deployment", &mut d);
        let c = &d["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(c["resources"]["limits"]["cpu"], json!("500m"));
        assert_eq!(c["resources"]["limits"]["memory"], json!("1Gi"));
        assert_eq!(c["resources"]["requests"]["cpu"], json!("bogus"));
        assert_eq!(c["livenessProbe"]["httpGet"]["port"], json!(8080));
        assert!(c["livenessProbe"]["httpGet"]["port"].is_i64());
        assert_eq!(d["spec"]["strategy"]["rollingUpdate"]["maxSurge"], json!(1));
        assert_eq!(
            d["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"],
            json!("25%")
        );
        // plain int fields are not IntOrString: left alone
        assert!(c["ports"][0]["containerPort"].is_f64());

        let mut svc = json!({"spec": {"ports": [{"port": 80, "targetPort": "80"}]}});
        normalize_known_types("", "Service", &mut svc);
        assert_eq!(svc["spec"]["ports"][0]["targetPort"], json!("80"));

        let mut cr = json!({"spec": {"cpu": 0.5}});
        let before = cr.clone();
        normalize_known_types("example.com", "Thing", &mut cr);
        assert_eq!(cr, before);

        let mut pod_spec =
            json!({"containers": [{"name": "a", "resources": {"requests": {"memory": "2048Mi"}}}]});
        assert!(normalize_as_type("core/v1/PodSpec", &mut pod_spec));
        assert_eq!(
            pod_spec["containers"][0]["resources"]["requests"]["memory"],
            json!("2Gi")
        );
        let mut q = json!("0.1");
        assert!(normalize_as_type("core/Quantity", &mut q));
        assert_eq!(q, json!("100m"));
        let mut rl = json!({"cpu": "1000m"});
        assert!(normalize_as_type("core/v1/ResourceList", &mut rl));
        assert_eq!(rl, json!({"cpu": "1"}));
        let mut rr = json!({"limits": {"cpu": "1000m"}});
        assert!(normalize_as_type("core/v1/ResourceRequirements", &mut rr));
        assert_eq!(rr, json!({"limits": {"cpu": "1"}}));
        let mut x = json!({"a": 1});
        assert!(normalize_as_type("apps/v1/DeploymentSpec", &mut x));
        assert!(normalize_as_type("meta/v1/ObjectMeta", &mut x));
        assert!(!normalize_as_type("core/v1/NoSuchType", &mut x));
        assert!(!normalize_as_type("nonsense", &mut x));
        assert!(!normalize_as_type("", &mut x));
        assert_eq!(x, json!({"a": 1}));
    }

    fn defaulted(group: &str, kind: &str, mut v: Value) -> Value {
        apply_defaults(group, kind, &mut v);
        let once = v.clone();
        apply_defaults(group, kind, &mut v);
        assert_eq!(v, once, "apply_defaults must be idempotent for {kind}");
        v
    }

    fn minimal_pod_spec() -> Value {
        json!({"containers": [{"name": "app", "image": "nginx:1.25", "ports": [{"containerPort": 80}],
            "livenessProbe": {"httpGet": {"port": 80}},
            "env": [{"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}],
          "volumes": [{"name": "cfg", "configMap": {"name": "c"}}, {"name": "scratch"},
                      {"name": "hp", "hostPath": {"path": "/x"}}]})
    }

    #[test]
    fn defaults_deployment() {
        let d = defaulted(
            "apps",
            "Deployment",
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                   "spec": {"selector": {"matchLabels": {"a": "b"}},
                            "template": {"metadata": {"labels": {"a": "b"}}, "spec": minimal_pod_spec()}}}),
        );
        let s = &d["spec"];
        assert_eq!(s["replicas"], json!(1));
        assert_eq!(s["revisionHistoryLimit"], json!(10));
        assert_eq!(s["progressDeadlineSeconds"], json!(600));
        assert_eq!(
            s["strategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
        );
        let p = &s["template"]["spec"];
        assert_eq!(p["dnsPolicy"], json!("ClusterFirst"));
        assert_eq!(p["restartPolicy"], json!("Always"));
        assert_eq!(p["securityContext"], json!({}));
        assert_eq!(p["terminationGracePeriodSeconds"], json!(30));
        assert_eq!(p["schedulerName"], json!("default-scheduler"));
        let c = &p["containers"][0];
        assert_eq!(c["imagePullPolicy"], json!("IfNotPresent"));
        assert_eq!(c["terminationMessagePath"], json!("/dev/termination-log"));
        assert_eq!(c["terminationMessagePolicy"], json!("File"));
        assert_eq!(c["ports"][0]["protocol"], json!("TCP"));
        assert_eq!(
            c["env"][0]["valueFrom"]["fieldRef"]["apiVersion"],
            json!("v1")
        );
        assert_eq!(
            c["livenessProbe"],
            json!({"httpGet": {"port": 80, "path": "/", "scheme": "HTTP"}, "timeoutSeconds": 1,
                   "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3})
        );
        assert_eq!(p["volumes"][0]["configMap"]["defaultMode"], json!(420));
        assert_eq!(p["volumes"][1]["emptyDir"], json!({}));
        assert_eq!(p["volumes"][2]["hostPath"]["type"], json!(""));
        assert!(p["volumes"][0].get("emptyDir").is_none());

        // Recreate strategy: no rollingUpdate
        let d = defaulted(
            "apps",
            "Deployment",
            json!({"spec": {"strategy": {"type": "Recreate"}}}),
        );
        assert_eq!(d["spec"]["strategy"], json!({"type": "Recreate"}));
        // present values never change
        let d = defaulted(
            "apps",
            "Deployment",
            json!({"spec": {"replicas": 3, "strategy": {"rollingUpdate": {"maxSurge": 1}}}}),
        );
        assert_eq!(d["spec"]["replicas"], json!(3));
        assert_eq!(
            d["spec"]["strategy"]["rollingUpdate"],
            json!({"maxSurge": 1, "maxUnavailable": "25%"})
        );
    }

    #[test]
    fn image_pull_policy() {
        for (image, policy) in [
            ("nginx", "Always"),
            ("nginx:latest", "Always"),
            ("nginx:1.25", "IfNotPresent"),
            ("registry:5000/team/app", "Always"),
            ("registry:5000/team/app:v2", "IfNotPresent"),
            ("nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "IfNotPresent"),
            ("nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "Always"),
            ("", "IfNotPresent"),
            ("Nginx", "IfNotPresent"),
            ("localhost/app", "Always"),
        ] {
            let d = defaulted("", "Pod", json!({"spec": {"containers": [{"name": "a", "image": image}]}}));
            assert_eq!(d["spec"]["containers"][0]["imagePullPolicy"], json!(policy), "{image}");
        }
        let d = defaulted("", "Pod", json!({"spec": {"containers": [{"name": "a"}]}}));
        assert_eq!(
            d["spec"]["containers"][0]["imagePullPolicy"],
            json!("IfNotPresent")
        );
    }

    #[test]
    fn defaults_service() {
        let s = defaulted(
            "",
            "Service",
            json!({"spec": {"ports": [{"port": 80}, {"port": 443, "targetPort": "https"}]}}),
        );
        assert_eq!(s["spec"]["type"], json!("ClusterIP"));
        assert_eq!(s["spec"]["sessionAffinity"], json!("None"));
        assert_eq!(s["spec"]["internalTrafficPolicy"], json!("Cluster"));
        assert!(s["spec"].get("externalTrafficPolicy").is_none());
        assert!(s["spec"].get("allocateLoadBalancerNodePorts").is_none());
        assert!(s["spec"].get("sessionAffinityConfig").is_none());
        assert_eq!(
            s["spec"]["ports"][0],
            json!({"port": 80, "protocol": "TCP", "targetPort": 80})
        );
        assert_eq!(s["spec"]["ports"][1]["targetPort"], json!("https"));

        let s = defaulted(
            "",
            "Service",
            json!({"spec": {"type": "LoadBalancer", "sessionAffinity": "ClientIP", "ports": [{"port": 80, "targetPort": 0}]}}),
        );
        assert_eq!(s["spec"]["externalTrafficPolicy"], json!("Cluster"));
        assert_eq!(s["spec"]["internalTrafficPolicy"], json!("Cluster"));
        assert_eq!(s["spec"]["allocateLoadBalancerNodePorts"], json!(true));
        assert_eq!(
            s["spec"]["sessionAffinityConfig"],
            json!({"clientIP": {"timeoutSeconds": 10800}})
        );
        assert_eq!(s["spec"]["ports"][0]["targetPort"], json!(80));

        let s = defaulted(
            "",
            "Service",
            json!({"spec": {"type": "ExternalName", "externalName": "x.example"}}),
        );
        assert!(s["spec"].get("internalTrafficPolicy").is_none());
        assert!(s["spec"].get("externalTrafficPolicy").is_none());
        let s = defaulted("", "Service", json!({"spec": {"externalIPs": ["1.2.3.4"]}}));
        assert_eq!(s["spec"]["externalTrafficPolicy"], json!("Cluster"));
    }

    #[test]
    fn defaults_cronjob_and_job() {
        let cj = defaulted(
            "batch",
            "CronJob",
            json!({"spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {"spec": {
                "restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox"}]}}}}}}),
        );
        let s = &cj["spec"];
        assert_eq!(s["concurrencyPolicy"], json!("Allow"));
        assert_eq!(s["suspend"], json!(false));
        assert_eq!(s["successfulJobsHistoryLimit"], json!(3));
        assert_eq!(s["failedJobsHistoryLimit"], json!(1));
        let p = &s["jobTemplate"]["spec"]["template"]["spec"];
        assert_eq!(p["restartPolicy"], json!("OnFailure"));
        assert_eq!(p["dnsPolicy"], json!("ClusterFirst"));
        assert_eq!(p["containers"][0]["imagePullPolicy"], json!("Always"));
        // Job-level defaults are not applied to the job template of a CronJob
        assert!(s["jobTemplate"]["spec"].get("backoffLimit").is_none());

        let j = defaulted(
            "batch",
            "Job",
            json!({"spec": {"template": {"metadata": {"labels": {"app": "x"}}, "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}),
        );
        assert_eq!(j["spec"]["completions"], json!(1));
        assert_eq!(j["spec"]["parallelism"], json!(1));
        assert_eq!(j["spec"]["backoffLimit"], json!(6));
        assert_eq!(j["spec"]["completionMode"], json!("NonIndexed"));
        assert_eq!(j["spec"]["suspend"], json!(false));
        assert_eq!(j["spec"]["manualSelector"], json!(false));
        assert_eq!(
            j["spec"]["podReplacementPolicy"],
            json!("TerminatingOrFailed")
        );
        assert_eq!(j["metadata"]["labels"], json!({"app": "x"}));

        let j = defaulted(
            "batch",
            "Job",
            json!({"spec": {"parallelism": 3, "backoffLimitPerIndex": 1,
                   "podFailurePolicy": {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}}}),
        );
        assert!(j["spec"].get("completions").is_none());
        assert_eq!(j["spec"]["parallelism"], json!(3));
        assert_eq!(j["spec"]["backoffLimit"], json!(2147483647));
        assert_eq!(j["spec"]["podReplacementPolicy"], json!("Failed"));
        assert_eq!(
            j["spec"]["podFailurePolicy"]["rules"][0]["onPodConditions"][0]["status"],
            json!("True")
        );
    }

    #[test]
    fn defaults_statefulset() {
        let s = defaulted(
            "apps",
            "StatefulSet",
            json!({"spec": {"serviceName": "s", "template": {"spec": minimal_pod_spec()},
                   "volumeClaimTemplates": [{"metadata": {"name": "data"},
                       "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}}),
        );
        let sp = &s["spec"];
        assert_eq!(sp["replicas"], json!(1));
        assert_eq!(sp["podManagementPolicy"], json!("OrderedReady"));
        assert_eq!(sp["revisionHistoryLimit"], json!(10));
        assert_eq!(
            sp["updateStrategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
        );
        assert_eq!(
            sp["persistentVolumeClaimRetentionPolicy"],
            json!({"whenDeleted": "Retain", "whenScaled": "Retain"})
        );
        let vct = &sp["volumeClaimTemplates"][0];
        assert_eq!(vct["apiVersion"], json!("v1"));
        assert_eq!(vct["kind"], json!("PersistentVolumeClaim"));
        assert_eq!(vct["spec"]["volumeMode"], json!("Filesystem"));
        assert!(vct.get("status").is_none());
        assert_eq!(
            sp["template"]["spec"]["containers"][0]["imagePullPolicy"],
            json!("IfNotPresent")
        );

        // type given without rollingUpdate: no rollingUpdate, no partition
        let s = defaulted(
            "apps",
            "StatefulSet",
            json!({"spec": {"updateStrategy": {"type": "RollingUpdate"}}}),
        );
        assert_eq!(
            s["spec"]["updateStrategy"],
            json!({"type": "RollingUpdate"})
        );
        let s = defaulted(
            "apps",
            "StatefulSet",
            json!({"spec": {"updateStrategy": {"type": "OnDelete"}}}),
        );
        assert_eq!(s["spec"]["updateStrategy"], json!({"type": "OnDelete"}));
    }

    #[test]
    fn defaults_daemonset_and_others() {
        let d = defaulted("apps", "DaemonSet", json!({"spec": {}}));
        assert_eq!(
            d["spec"]["updateStrategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}})
        );
        assert_eq!(d["spec"]["revisionHistoryLimit"], json!(10));
        let d = defaulted("extensions", "ReplicaSet", json!({"spec": {}}));
        assert_eq!(d["spec"]["replicas"], json!(1));
        let rc = defaulted(
            "",
            "ReplicationController",
            json!({"spec": {"template": {"metadata": {"labels": {"a": "b"}}}}}),
        );
        assert_eq!(rc["spec"]["replicas"], json!(1));
        assert_eq!(rc["spec"]["selector"], json!({"a": "b"}));
        assert_eq!(rc["metadata"]["labels"], json!({"a": "b"}));
        let hpa = defaulted(
            "autoscaling",
            "HorizontalPodAutoscaler",
            json!({"apiVersion": "autoscaling/v2", "spec": {"maxReplicas": 3, "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}}),
        );
        assert_eq!(hpa["spec"]["minReplicas"], json!(1));
        assert_eq!(
            hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
            json!(80)
        );
        assert_eq!(
            hpa["spec"]["behavior"]["scaleUp"]["policies"][0]["value"],
            json!(4)
        );
        assert_eq!(
            hpa["spec"]["behavior"]["scaleUp"]["stabilizationWindowSeconds"],
            json!(0)
        );
        assert_eq!(
            hpa["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"],
            json!(60)
        );
        assert_eq!(
            hpa["spec"]["behavior"]["scaleDown"]["selectPolicy"],
            json!("Max")
        );
        let hpa1 = defaulted(
            "autoscaling",
            "HorizontalPodAutoscaler",
            json!({"apiVersion": "autoscaling/v1", "spec": {"maxReplicas": 3}}),
        );
        assert!(hpa1["spec"].get("metrics").is_none());
        assert!(hpa1["spec"].get("behavior").is_none());
        let rb = defaulted(
            "rbac.authorization.k8s.io",
            "RoleBinding",
            json!({"roleRef": {"kind": "Role", "name": "r"},
            "subjects": [{"kind": "ServiceAccount", "name": "sa"}, {"kind": "User", "name": "u"}]}),
        );
        assert_eq!(
            rb["roleRef"]["apiGroup"],
            json!("rbac.authorization.k8s.io")
        );
        assert!(rb["subjects"][0].get("apiGroup").is_none());
        assert_eq!(
            rb["subjects"][1]["apiGroup"],
            json!("rbac.authorization.k8s.io")
        );
        let crd = defaulted(
            "apiextensions.k8s.io",
            "CustomResourceDefinition",
            json!({"spec": {"group": "x.io", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced"}}),
        );
        assert_eq!(crd["spec"]["names"]["singular"], json!("widget"));
        assert_eq!(crd["spec"]["names"]["listKind"], json!("WidgetList"));
        assert_eq!(crd["spec"]["conversion"], json!({"strategy": "None"}));
        let ns = defaulted("", "Namespace", json!({"metadata": {"name": "team"}}));
        assert_eq!(
            ns["metadata"]["labels"]["kubernetes.io/metadata.name"],
            json!("team")
        );
        let sec = defaulted("", "Secret", json!({"data": {}}));
        assert_eq!(sec["type"], json!("Opaque"));
        let np = defaulted(
            "networking.k8s.io",
            "NetworkPolicy",
            json!({"spec": {"egress": [{"ports": [{"port": 53}]}]}}),
        );
        assert_eq!(np["spec"]["policyTypes"], json!(["Ingress", "Egress"]));
        assert_eq!(
            np["spec"]["egress"][0]["ports"][0]["protocol"],
            json!("TCP")
        );
        let pvc = defaulted(
            "",
            "PersistentVolumeClaim",
            json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "spec": {}}),
        );
        assert_eq!(pvc["spec"]["volumeMode"], json!("Filesystem"));
        let cm = defaulted("", "ConfigMap", json!({"data": {"a": "b"}}));
        assert_eq!(cm, json!({"data": {"a": "b"}}));
        let mut cr = json!({"spec": {}});
        apply_defaults("example.com", "Widget", &mut cr);
        assert_eq!(cr, json!({"spec": {}}));
    }

    #[test]
    fn defaults_webhooks() {
        let m = defaulted(
            "admissionregistration.k8s.io",
            "MutatingWebhookConfiguration",
            json!({"apiVersion": "admissionregistration.k8s.io/v1", "webhooks": [{
                "name": "w.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
                "clientConfig": {"service": {"name": "s", "namespace": "n"}},
                "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}]}]}),
        );
        let w = &m["webhooks"][0];
        assert_eq!(w["failurePolicy"], json!("Fail"));
        assert_eq!(w["matchPolicy"], json!("Equivalent"));
        assert_eq!(w["namespaceSelector"], json!({}));
        assert_eq!(w["objectSelector"], json!({}));
        assert_eq!(w["timeoutSeconds"], json!(10));
        assert_eq!(w["reinvocationPolicy"], json!("Never"));
        assert_eq!(w["sideEffects"], json!("None"));
        assert_eq!(w["admissionReviewVersions"], json!(["v1"]));
        assert_eq!(w["rules"][0]["scope"], json!("*"));
        assert_eq!(w["clientConfig"]["service"]["port"], json!(443));

        let v = defaulted(
            "admissionregistration.k8s.io",
            "ValidatingWebhookConfiguration",
            json!({"apiVersion": "admissionregistration.k8s.io/v1beta1", "webhooks": [{"name": "v", "clientConfig": {"url": "https://x"}}]}),
        );
        let w = &v["webhooks"][0];
        assert_eq!(w["failurePolicy"], json!("Ignore"));
        assert_eq!(w["matchPolicy"], json!("Exact"));
        assert_eq!(w["sideEffects"], json!("Unknown"));
        assert_eq!(w["timeoutSeconds"], json!(30));
        assert_eq!(w["admissionReviewVersions"], json!(["v1beta1"]));
        assert!(w.get("reinvocationPolicy").is_none());
    }

    #[test]
    fn default_for_explains() {
        let live = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"replicas": 3, "progressDeadlineSeconds": 600,
                     "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
                     "template": {"spec": {"containers": [{"name": "a", "image": "nginx", "imagePullPolicy": "Always",
                         "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}}}});
        let g = |p: &str| default_for("apps", "Deployment", &live, p);
        assert_eq!(g("/spec/replicas"), Some(json!(1)));
        assert_eq!(g("/spec/progressDeadlineSeconds"), Some(json!(600)));
        assert_eq!(
            g("/spec/strategy/rollingUpdate/maxSurge"),
            Some(json!("25%"))
        );
        assert_eq!(
            g("/spec/strategy"),
            Some(
                json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}})
            )
        );
        assert_eq!(
            g("/spec/template/spec/containers/0/imagePullPolicy"),
            Some(json!("Always"))
        );
        assert_eq!(
            g("/spec/template/spec/containers/0/ports/0/protocol"),
            Some(json!("TCP"))
        );
        assert_eq!(
            g("/spec/template/spec/dnsPolicy"),
            Some(json!("ClusterFirst"))
        );
        assert_eq!(g("/spec/template/spec/containers/0/image"), None);
        assert_eq!(g("/spec/template/spec/containers/0"), None);
        assert_eq!(g("/spec/template/spec/containers"), None);
        assert_eq!(g("/metadata/name"), None);
        assert_eq!(g("/spec/template/spec/securityContext/runAsUser"), None);
        assert_eq!(g(""), None);
        assert_eq!(g("spec/replicas"), None);
        assert_eq!(g("/nope/deeper/still"), None);
        assert_eq!(
            default_for("example.com", "Widget", &live, "/spec/replicas"),
            None
        );

        let svc = json!({"spec": {"type": "ClusterIP", "ports": [{"port": 8080, "targetPort": 8080, "protocol": "TCP"}]}});
        assert_eq!(
            default_for("", "Service", &svc, "/spec/ports/0/targetPort"),
            Some(json!(8080))
        );
        assert_eq!(
            default_for("", "Service", &svc, "/spec/sessionAffinity"),
            Some(json!("None"))
        );
        assert_eq!(default_for("", "Service", &svc, "/spec/clusterIP"), None);

        let job = json!({"spec": {"completions": 1, "parallelism": 1, "template": {}}});
        assert_eq!(
            default_for("batch", "Job", &job, "/spec/completions"),
            Some(json!(1))
        );
        let job = json!({"spec": {"completions": 1, "parallelism": 4, "template": {}}});
        assert_eq!(default_for("batch", "Job", &job, "/spec/completions"), None);

        let hpa = json!({"apiVersion": "autoscaling/v2", "spec": {"metrics": [{"type": "Resource",
            "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]}});
        assert_eq!(
            default_for(
                "autoscaling",
                "HorizontalPodAutoscaler",
                &hpa,
                "/spec/metrics/0/resource/target/averageUtilization"
            ),
            Some(json!(80))
        );
        let ns = json!({"metadata": {"name": "team", "labels": {"kubernetes.io/metadata.name": "team"}}});
        assert_eq!(
            default_for(
                "",
                "Namespace",
                &ns,
                "/metadata/labels/kubernetes.io~1metadata.name"
            ),
            Some(json!("team"))
        );
    }

    /// Wide: every key that could be a schema field, a few levels deep (kept small).
    fn nested(depth: usize) -> Value {
        let mut v = json!({"leaf": 1});
        for _ in 0..depth {
            v = json!({"schema": v, "spec": v.clone(), "items": [v.clone()], "properties": {"p": v.clone()}});
            if v.to_string().len() > 20_000 {
                break;
            }
        }
        v
    }

    /// Deep: a long chain through recursive schema types (JSONSchemaProps) and unknown keys.
    fn deep(depth: usize) -> Value {
        let mut v = json!("bottom");
        for i in 0..depth {
            v = match i % 4 {
                0 => json!({"properties": {"x": v}}),
                1 => json!({"items": v}),
                2 => json!({"spec": {"template": [v]}}),
                _ => json!([v]),
            };
        }
        json!({"spec": {"versions": [{"schema": {"openAPIV3Schema": v}}]}})
    }

    #[test]
    fn garbage_never_panics() {
        let garbage = vec![
            json!(null),
            json!("a string"),
            json!(42),
            json!([1, 2, 3]),
            json!({"spec": "not an object"}),
            json!({"spec": null}),
            json!({"spec": {"template": "x", "strategy": "y", "replicas": "three"}}),
            json!({"spec": {"template": {"spec": {"containers": "nope", "volumes": [null, 1, "x", {"name": null}]}}}}),
            json!({"spec": {"template": {"spec": {"containers": [null, 3, [], {"image": 5, "ports": [null, {"protocol": null}],
                "resources": {"limits": "x", "requests": {"cpu": {"nested": true}, "memory": [1]}},
                "livenessProbe": {"httpGet": "x"}, "env": [{"valueFrom": {"fieldRef": null}}]}]}}}}),
            json!({"spec": {"strategy": {"type": 1, "rollingUpdate": "no"}}}),
            json!({"spec": {"updateStrategy": {"type": null, "rollingUpdate": 7}}}),
            json!({"spec": {"ports": [{"port": "eighty"}, {"port": null}, "x"], "type": 5, "sessionAffinity": ["x"]}}),
            json!({"metadata": "x", "webhooks": [{"clientConfig": {"service": "s"}, "rules": [null, {"scope": null}]}]}),
            json!({"metadata": {"name": 5, "labels": "x"}}),
            json!({"spec": {"names": {"kind": 3}, "conversion": null, "versions": [{"schema": {"openAPIV3Schema": nested(6)}}]}}),
            json!({"spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "x"}]}}}}, "behavior": "x"}}),
            nested(300),
            deep(600),
        ];
        let kinds = [
            ("apps", "Deployment"),
            ("apps", "StatefulSet"),
            ("apps", "DaemonSet"),
            ("", "Service"),
            ("", "Pod"),
            ("", "Namespace"),
            ("", "ReplicationController"),
            ("batch", "Job"),
            ("batch", "CronJob"),
            (
                "admissionregistration.k8s.io",
                "MutatingWebhookConfiguration",
            ),
            ("apiextensions.k8s.io", "CustomResourceDefinition"),
            ("autoscaling", "HorizontalPodAutoscaler"),
            ("networking.k8s.io", "NetworkPolicy"),
            ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
            ("x.io", "Thing"),
        ];
        for (g, k) in kinds {
            for v in &garbage {
                let mut a = v.clone();
                apply_defaults(g, k, &mut a);
                apply_defaults(g, k, &mut a);
                let mut b = v.clone();
                normalize_known_types(g, k, &mut b);
                for p in [
                    "",
                    "/",
                    "/spec",
                    "/spec/replicas",
                    "/spec/template/spec/containers/0/imagePullPolicy",
                    "/spec/ports/0/targetPort",
                    "/~",
                    "/spec/~2/x",
                    "/spec/ports/01",
                    "/spec/ports/-1",
                    "/webhooks/0/timeoutSeconds",
                    "/metadata/labels/a~1b",
                ] {
                    let _ = default_for(g, k, v, p);
                }
            }
        }
        for t in [
            "core/v1/PodSpec",
            "core/Quantity",
            "meta/v1/Duration",
            "core/v1/ResourceList",
            "a/b/c/d",
            "//",
            "core//x",
        ] {
            for v in &garbage {
                let mut a = v.clone();
                let _ = normalize_as_type(t, &mut a);
            }
        }
        for s in [
            "-",
            "+",
            ".",
            "-.",
            "e",
            "E5",
            "1e+",
            "1e-",
            "0x10",
            "∞",
            "1µ",
            "1\u{0}",
            "1.e3",
            "9".repeat(2000).as_str(),
            "99999999999999999999Ei",
            "0.0000000000000000000000001",
            "-0.000000000000001Ki",
            "1e-1000",
            "1e1000",
        ] {
            let _ = cq(s);
        }
        for s in [
            "∞",
            "1µ",
            "1\u{0}s",
            "1.s",
            "-",
            "+",
            "9223372036854775807ns",
            "9223372036854775808ns",
            "-9223372036854775808ns",
            "2562047h47m16.854775807s",
            "2562047h47m16.854775808s",
            ".5h",
            "1..5s",
        ] {
            let mut v = Value::from(s);
            normalize_as_type("meta/v1/Duration", &mut v);
        }
    }
}
