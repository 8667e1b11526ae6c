//! The text of a run's answer, as a JSON value of it would be written (keys
//! in the order of a value's map: sorted), without making that value: the
//! top level is written key by key, the summary and each flow through a
//! value of its own, the tables (already values) as they are.
//!
//! The text is written twice: once to count its bytes, once into a buffer
//! made at that size. Grown by doubling instead, a buffer of tens of MiB
//! leaves each smaller copy of itself behind in glibc's heap whenever the
//! process's threshold for blocks of their own is above them (in a Python
//! process it usually is: `engine/malloc.rs`).

use serde::Serialize;
use serde_json::Value;
use std::io::Write;

/// Writes one field's value.
pub(super) type WriteField<'a> = dyn Fn(&mut dyn Write) + 'a;

/// `{"name":value,...}` of `fields`, in the order of their names.
pub(super) fn object_text(fields: &mut [(&str, &WriteField)]) -> String {
    object_text_then(fields, &mut |_| {})
}

/// [`object_text`], calling `counted` with the text's length once it is
/// known and before the buffer for it is made.
pub(super) fn object_text_then(
    fields: &mut [(&str, &WriteField)],
    counted: &mut dyn FnMut(usize),
) -> String {
    fields.sort_unstable_by_key(|&(name, _)| name);
    let mut count = Count(0);
    write_object(&mut count, fields);
    counted(count.0);
    let mut out = Vec::with_capacity(count.0);
    write_object(&mut out, fields);
    debug_assert_eq!(out.len(), count.0, "the same text twice");
    String::from_utf8(out).expect("JSON text is UTF-8")
}

fn write_object(w: &mut dyn Write, fields: &[(&str, &WriteField)]) {
    for (i, (name, write)) in fields.iter().enumerate() {
        put(w, if i == 0 { b"{" } else { b"," });
        write_value(w, &Value::from(*name));
        put(w, b":");
        write(w);
    }
    put(w, b"}");
}

/// `v` as a JSON value would write it: its keys sorted (a struct's fields
/// are written in their own order, a value's in its map's).
pub(super) fn write_as_value<T: Serialize>(w: &mut dyn Write, v: &T) {
    write_value(w, &serde_json::to_value(v).expect("a result serialises"));
}

/// A list, each element through [`write_as_value`] alone: one element's
/// value at a time, not the whole list's.
pub(super) fn write_each_as_value<T: Serialize>(w: &mut dyn Write, items: &[T]) {
    put(w, b"[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            put(w, b",");
        }
        write_as_value(w, item);
    }
    put(w, b"]");
}

pub(super) fn write_value(w: &mut dyn Write, v: &Value) {
    serde_json::to_writer(w, v).expect("a JSON value is written");
}

fn put(w: &mut dyn Write, bytes: &[u8]) {
    w.write_all(bytes).expect("JSON text is written");
}

/// A writer that only counts the bytes it is given.
struct Count(usize);

impl Write for Count {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
