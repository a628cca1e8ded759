//! Text widths without a canvas: the charts measure their labels with the page's canvas; the
//! first view (drawn natively at build time, or by the draw program before the app) uses
//! Helvetica's advance widths instead.

/// Advance widths of Helvetica / Arial (per 1000 em) for ASCII 32..=126: the chart's font
/// stack ends in them, and system-ui faces (San Francisco, Segoe UI, Roboto) are close. The
/// page measures with the canvas's `measureText`; this table stands in for it, so labels land
/// where the canvas will put them to within a few pixels.
const HELVETICA: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278,
    278, // ' '..'/'
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // '0'..'9'
    278, 278, 584, 584, 584, 556, 1015, // ':'..'@'
    667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, // 'A'..'M'
    722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, // 'N'..'Z'
    278, 278, 278, 469, 556, 333, // '['..'`'
    556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, // 'a'..'m'
    556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, // 'n'..'z'
    334, 260, 334, 584, // '{'..'~'
];

/// A [`crate::charts::TextMeasurer`]: (width, height) in px of `text` at `size` px.
pub fn helvetica(text: &str, _family: &str, size: f64, style: &str) -> Option<(f64, f64)> {
    let em: f64 = text
        .chars()
        .map(|c| match c as u32 {
            n @ 32..=126 => HELVETICA[(n - 32) as usize] as f64,
            _ => 556.0,
        })
        .sum();
    let bold = if style.contains("bold") { 1.06 } else { 1.0 };
    Some(((em * size / 1000.0 * bold).ceil(), (size * 1.2).ceil()))
}
