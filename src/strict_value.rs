//! Reading YAML or JSON into `serde_json` values the way the API server reads
//! a manifest, without the silent losses of the general-purpose readers.
//!
//! `serde_json::Value`'s own deserializer lets the last of two equal keys win
//! and cannot hold `.nan` or `.inf` (it stores `null`), so a manifest with a
//! key written twice, or a replica count of `.nan`, would be compared as
//! something it does not say. The API server refuses both (strict decoding
//! reports duplicate fields; JSON has no NaN), so here the first is an error
//! at the duplicate and the second is kept, spelt as YAML spells it, so the
//! comparison shows it. Non-string keys become strings as `sigs.k8s.io/yaml`
//! makes them; a key that is a list or a mapping is an error at that key.
//! Tags (`!foo value`) are dropped, keeping the tagged value. Merge keys
//! (`<<: *anchor`) are expanded, as go-yaml expands them for Argo CD.

#![warn(missing_docs)]

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// A value read strictly; see the module documentation.
pub struct StrictValue(pub Value);

impl<'de> de::Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor).map(StrictValue)
    }
}

/// How a non-finite float is kept: the YAML spelling, as text.
pub(crate) fn non_finite_text(f: f64) -> String {
    if f.is_nan() {
        ".nan".to_string()
    } else if f > 0.0 {
        ".inf".to_string()
    } else {
        "-.inf".to_string()
    }
}

/// The YAML merge key.
const MERGE_KEY: &str = "<<";
const MERGE_NEEDS_MAPS: &str =
    "a merge key (`<<`) needs a mapping or a list of mappings, as YAML defines it";

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a YAML or JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Number(i.into()))
    }

    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(Value::Number(u.into()))
    }

    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(Number::from_f64(f).map_or_else(|| Value::String(non_finite_text(f)), Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(StrictValue(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        // YAML merge keys (`<<: *defaults`), which go-yaml expands when Argo CD
        // reads a manifest: the merged mapping's keys fill in what the map does
        // not say itself, earlier mappings of a list before later ones.
        let mut merged = Map::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            if key == MERGE_KEY {
                let StrictValue(value) = map.next_value()?;
                let sources = match value {
                    Value::Object(m) => vec![m],
                    Value::Array(items) => items
                        .into_iter()
                        .map(|i| match i {
                            Value::Object(m) => Ok(m),
                            _ => Err(de::Error::custom(MERGE_NEEDS_MAPS)),
                        })
                        .collect::<Result<_, A::Error>>()?,
                    _ => return Err(de::Error::custom(MERGE_NEEDS_MAPS)),
                };
                for source in sources {
                    for (k, v) in source {
                        merged.entry(k).or_insert(v);
                    }
                }
                continue;
            }
            // One search per key: the entry waits while its value is read.
            match out.entry(key) {
                serde_json::map::Entry::Vacant(entry) => {
                    let StrictValue(value) = map.next_value()?;
                    entry.insert(value);
                }
                serde_json::map::Entry::Occupied(entry) => {
                    // Failing inside the value's own deserialisation makes
                    // the reader attach the duplicate's position, not the map's.
                    let duplicate = Duplicate {
                        key: entry.key().clone(),
                    };
                    let error = duplicate.error();
                    map.next_value_seed(duplicate)?;
                    return Err(error);
                }
            }
        }
        for (k, v) in merged {
            out.entry(k).or_insert(v);
        }
        Ok(Value::Object(out))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        // serde_yaml hands a value with an unknown tag (`!foo x`) over as an
        // enum variant named after the tag: keep the value, drop the tag.
        let (_tag, variant) = data.variant::<de::IgnoredAny>()?;
        de::VariantAccess::newtype_variant_seed(variant, ValueSeed)
    }
}

struct ValueSeed;

impl<'de> DeserializeSeed<'de> for ValueSeed {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

/// A mapping key as text, as `sigs.k8s.io/yaml` turns scalar keys into JSON keys.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = String;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_any(KeyVisitor)
    }
}

struct KeyVisitor;

impl KeyVisitor {
    fn not_text<E: de::Error>(what: &str) -> E {
        E::custom(format!(
            "a mapping key is {what}; Kubernetes manifests have text keys"
        ))
    }
}

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a mapping key")
    }

    fn visit_bool<E>(self, b: bool) -> Result<String, E> {
        Ok(b.to_string())
    }

    fn visit_i64<E>(self, i: i64) -> Result<String, E> {
        Ok(i.to_string())
    }

    fn visit_u64<E>(self, u: u64) -> Result<String, E> {
        Ok(u.to_string())
    }

    fn visit_f64<E>(self, f: f64) -> Result<String, E> {
        Ok(if f.is_finite() {
            f.to_string()
        } else {
            non_finite_text(f)
        })
    }

    fn visit_str<E>(self, s: &str) -> Result<String, E> {
        Ok(s.to_string())
    }

    fn visit_string<E>(self, s: String) -> Result<String, E> {
        Ok(s)
    }

    fn visit_none<E>(self) -> Result<String, E> {
        Ok("null".to_string())
    }

    fn visit_unit<E>(self) -> Result<String, E> {
        Ok("null".to_string())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_any(KeyVisitor)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(Self::not_text("a list (a complex key, `? [..]`)"))
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<String, A::Error> {
        Err(Self::not_text("a mapping (a complex key, `? {..}`)"))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<String, A::Error> {
        let (_tag, variant) = data.variant::<de::IgnoredAny>()?;
        de::VariantAccess::newtype_variant_seed(variant, KeySeed)
    }
}

/// The value of a key seen before in the same mapping: an error raised from
/// inside that value, so it carries the value's position.
struct Duplicate {
    key: String,
}

impl<'de> DeserializeSeed<'de> for Duplicate {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl Duplicate {
    fn error<E: de::Error>(&self) -> E {
        E::custom(format!(
            "the key `{}` appears twice in one mapping (the API server refuses duplicate fields; which one did you mean?)",
            self.key
        ))
    }
}

impl<'de> Visitor<'de> for Duplicate {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("no value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(self.error())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Err(self.error())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Err(self.error())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Err(self.error())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Err(self.error())
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Err(self.error())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(self.error())
    }
    fn visit_some<D: Deserializer<'de>>(self, _: D) -> Result<(), D::Error> {
        Err(self.error())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(self.error())
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(self.error())
    }
    fn visit_enum<A: EnumAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(self.error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> Result<Value, serde_yaml::Error> {
        serde_yaml::from_str::<StrictValue>(text).map(|v| v.0)
    }

    #[test]
    fn reads_what_the_plain_reader_reads() {
        let text = "a: 1\nb: [x, 2.5, true, null]\nc: {d: e}\n80: http\ntrue: yes\n";
        let v = yaml(text).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"a": 1, "b": ["x", 2.5, true, null], "c": {"d": "e"}, "80": "http", "true": "yes"})
        );
    }

    #[test]
    fn a_duplicate_key_is_an_error_at_the_duplicate() {
        let e = yaml("data:\n  a: \"1\"\n  b: x\n  a: \"2\"\n").unwrap_err();
        assert!(e.to_string().contains("`a` appears twice"), "{e}");
        assert_eq!(e.location().map(|l| l.line()), Some(4), "{e}");
        let e = serde_json::from_str::<StrictValue>(r#"{"a":1,"a":2}"#)
            .err()
            .unwrap();
        assert!(e.to_string().contains("`a` appears twice"), "{e}");
    }

    #[test]
    fn non_finite_numbers_are_kept_as_written() {
        let v = yaml("a: .nan\nb: .inf\nc: -.Inf\n").unwrap();
        assert_eq!(
            v,
            serde_json::json!({"a": ".nan", "b": ".inf", "c": "-.inf"})
        );
    }

    #[test]
    fn complex_keys_are_errors_and_tags_are_dropped() {
        let e = yaml("? [complex, key]\n: v\n").unwrap_err();
        assert!(e.to_string().contains("a mapping key is a list"), "{e}");
        assert_eq!(e.location().map(|l| l.line()), Some(1), "{e}");
        assert_eq!(
            yaml("!foo a: !bar \"1\"\n").unwrap(),
            serde_json::json!({"a": "1"})
        );
    }
}
