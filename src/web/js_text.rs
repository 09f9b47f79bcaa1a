//! Large texts as the browser holds them. A pasted side of megabytes stays
//! a JavaScript string on the page: turning it into UTF-8 there, and copying
//! it into every analysis request, would stall the page for tens of
//! milliseconds (hundreds at tens of megabytes). The string travels to the
//! worker beside the request's encoded message, and the worker reads it.

use super::editor::BigInfo;
use super::protocol::{Input, Request};
use gloo::worker::{Bincode, Codec};
use js_sys::{Array, JsString, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    /// The browser's `TextEncoder`, given a JavaScript string as it is
    /// (wasm-bindgen's own conversion copies ASCII one character at a time).
    #[wasm_bindgen(js_name = TextEncoder)]
    type Utf8Encoder;
    #[wasm_bindgen(constructor, js_class = "TextEncoder")]
    fn new() -> Utf8Encoder;
    /// Writes `text` as UTF-8 into `into` (a view of the wasm memory), as
    /// much of it as fits without splitting a character: half the time of
    /// `encode`, which builds a JavaScript array to be copied afterwards.
    #[wasm_bindgen(method, js_class = "TextEncoder", js_name = encodeInto)]
    fn encode_into(this: &Utf8Encoder, text: &JsString, into: &Uint8Array) -> EncodedInto;

    /// What `encodeInto` did.
    type EncodedInto;
    /// The UTF-16 units of the text it read.
    #[wasm_bindgen(method, getter)]
    fn read(this: &EncodedInto) -> u32;
    /// The bytes it wrote.
    #[wasm_bindgen(method, getter)]
    fn written(this: &EncodedInto) -> u32;
}

/// A text kept as a JavaScript string.
#[derive(Clone, Debug)]
pub struct JsText(JsString);

impl JsText {
    pub fn new(text: JsString) -> JsText {
        JsText(text)
    }

    pub fn js(&self) -> &JsString {
        &self.0
    }

    /// Its length in UTF-16 units (at most its length in UTF-8 bytes).
    pub fn units(&self) -> usize {
        self.0.length() as usize
    }

    /// The text as UTF-8, written by the browser's encoder straight into
    /// the string's buffer. The buffer starts at one byte per UTF-16 unit,
    /// what ASCII needs; should the encoder stop for room, the rest gets
    /// three bytes a unit, room for any text, and is written in one more go.
    pub fn to_utf8(&self) -> String {
        let encoder = Utf8Encoder::new();
        let units = self.0.length();
        let mut bytes: Vec<u8> = Vec::with_capacity(units as usize);
        let read = encode_into_spare(&encoder, &self.0, &mut bytes);
        if read < units {
            bytes.reserve((units - read) as usize * 3);
            encode_into_spare(&encoder, &self.0.slice(read, units), &mut bytes);
        }
        // The encoder writes UTF-8 (lone surrogates become U+FFFD).
        String::from_utf8(bytes).unwrap_or_default()
    }

    /// Its first `lines` lines as UTF-8 (all of it when shorter), to sniff
    /// what kind of text it is without converting megabytes. A prefix is
    /// turned into UTF-8 at once and its line breaks found there, four times
    /// as long a prefix each time it holds too few: one call into the
    /// browser per prefix, not one per line.
    pub fn head(&self, lines: usize) -> String {
        if lines == 0 {
            return String::new();
        }
        let units = self.units();
        let mut prefix = HEAD_PREFIX_UNITS;
        loop {
            let whole = prefix >= units;
            let mut start = JsText(self.0.slice(0, prefix.min(units) as u32)).to_utf8();
            match end_of_lines(&start, lines) {
                Some(end) => {
                    start.truncate(end);
                    return start;
                }
                None if whole => return start,
                None => prefix = prefix.saturating_mul(4),
            }
        }
    }

    /// Measure the next slice of the text from where `measure` stopped:
    /// its size in UTF-8 bytes and its lines once the whole text is done.
    /// Each slice is turned into UTF-8 by the browser's encoder and its line
    /// breaks counted there, so that tens of megabytes never hold the page
    /// for long. Not the browser's regular expressions: they run
    /// interpreted the first time, and their arrays of matches leave
    /// megabytes to collect.
    pub fn measure_step(&self, measure: &mut Measure) -> Option<BigInfo> {
        let units = self.units();
        let mut end = (measure.at + MEASURE_SLICE_UNITS).min(units);
        // A slice never ends between the two halves of a surrogate pair,
        // which the encoder would write as two U+FFFD instead of one
        // four-byte character.
        if end < units && is_high_surrogate(self.0.char_code_at(end as u32 - 1)) {
            end -= 1;
        }
        let slice = JsText(self.0.slice(measure.at as u32, end as u32)).to_utf8();
        measure.bytes += slice.len();
        measure.breaks += memchr::memchr_iter(b'\n', slice.as_bytes()).count();
        measure.at = end;
        if end < units {
            return None;
        }
        // As `str::lines`: a last line break does not start another line.
        let unterminated = units > 0 && !self.0.ends_with("\n", units as i32);
        Some(BigInfo {
            bytes: measure.bytes,
            lines: measure.breaks + usize::from(unterminated),
            measuring: false,
        })
    }
}

/// Where the first `lines` lines of `text` end (after the last one's line
/// break), or None when it holds fewer line breaks.
fn end_of_lines(text: &str, lines: usize) -> Option<usize> {
    let last_break = memchr::memchr_iter(b'\n', text.as_bytes()).nth(lines.checked_sub(1)?)?;
    Some(last_break + 1)
}

/// Whether a UTF-16 unit (as `charCodeAt` gives it) opens a surrogate pair.
fn is_high_surrogate(unit: f64) -> bool {
    (f64::from(0xd800u16)..=f64::from(0xdbffu16)).contains(&unit)
}

/// UTF-16 units of a text's start turned into UTF-8 first to find its
/// first lines (`JsText::head`): two thousand lines of YAML or diff output
/// seldom need more.
const HEAD_PREFIX_UNITS: usize = 1 << 16;

/// UTF-16 units measured per step (a few milliseconds of the browser's
/// encoder and of counting line breaks).
pub const MEASURE_SLICE_UNITS: usize = 2 << 20;

/// How far `JsText::measure_step` has got, and what it has counted.
#[derive(Clone, Copy, Debug, Default)]
pub struct Measure {
    at: usize,
    bytes: usize,
    breaks: usize,
}

/// Write as much of `text` as fits into the spare capacity of `bytes`,
/// which grows by what was written; the UTF-16 units read.
fn encode_into_spare(encoder: &Utf8Encoder, text: &JsString, bytes: &mut Vec<u8>) -> u32 {
    let spare = bytes.spare_capacity_mut();
    if spare.is_empty() {
        return 0;
    }
    // SAFETY: the view covers the vector's spare capacity, and nothing
    // allocates (which could move or grow the wasm memory) before the
    // encoder has written into it.
    let view = unsafe { Uint8Array::view_mut_raw(spare.as_mut_ptr().cast(), spare.len()) };
    let done = encoder.encode_into(text, &view);
    let written = (done.written() as usize).min(spare.len());
    // SAFETY: the encoder initialised that many bytes of the spare capacity.
    unsafe { bytes.set_len(bytes.len() + written) };
    done.read()
}

impl From<&str> for JsText {
    fn from(text: &str) -> JsText {
        JsText(JsString::from(text))
    }
}

/// The large texts of an analysis request, sent beside its encoded message
/// (by `Field::big_slot`: Git, live, diff); the request's own fields for
/// them are left empty.
#[derive(Clone, Debug, Default)]
pub struct Attached(pub [Option<JsText>; 3]);

impl Attached {
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }

    pub fn holds(&self, slot: usize) -> bool {
        self.0.get(slot).is_some_and(Option::is_some)
    }

    /// Put the texts into `input`, as UTF-8.
    pub fn fill_input(&self, input: &mut Input) {
        let fields = [&mut input.git, &mut input.live, &mut input.diff];
        for (field, text) in fields.into_iter().zip(&self.0) {
            if let Some(text) = text {
                *field = text.to_utf8();
            }
        }
    }

    /// Put the texts into the request's input, if it has one.
    pub fn fill(&self, request: &mut Request) {
        if let Request::Analyze { input, .. } = request {
            self.fill_input(input);
        }
    }
}

/// Post `request` with its attached texts: the encoded bytes (transferred,
/// not copied) alone, or followed by the three texts.
pub fn post_request(
    request: &Request,
    attached: &Attached,
    post: impl FnOnce(&JsValue, &JsValue) -> Result<(), JsValue>,
) -> Result<(), JsValue> {
    super::protocol::post_encoded(request, |encoded, transfer| {
        if attached.is_empty() {
            return post(encoded, transfer);
        }
        let message = Array::of1(encoded);
        for text in &attached.0 {
            message.push(&text.as_ref().map_or(JsValue::UNDEFINED, |t| t.js().into()));
        }
        post(&message, transfer)
    })
}

/// A request as `post_request` sent it, its attached texts read into it.
pub fn read_request(data: JsValue) -> Request {
    let Some(parts) = data.dyn_ref::<Array>() else {
        return Bincode::decode(data);
    };
    let mut request: Request = Bincode::decode(parts.get(0));
    let texts = [1, 2, 3].map(|i| parts.get(i).dyn_into::<JsString>().ok().map(JsText));
    Attached(texts).fill(&mut request);
    request
}
