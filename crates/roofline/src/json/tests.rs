use super::tokenizer::find_quote_or_backslash;
use super::*;

#[derive(Default)]
struct Collect(Vec<String>);
impl Sink for Collect {
    fn token(&mut self, t: Token<'_>) -> Result<(), String> {
        self.0.push(match t {
            Token::BeginObject => "{".into(),
            Token::EndObject => "}".into(),
            Token::BeginArray => "[".into(),
            Token::EndArray => "]".into(),
            Token::Key(k) => format!("K:{k}"),
            Token::Str(s) => format!("S:{s}"),
            Token::Num(n) => format!("N:{n}"),
            Token::Bool(b) => format!("B:{b}"),
            Token::Null => "null".into(),
        });
        Ok(())
    }
}

fn tokens_with(opts: Options, text: &[u8], chunk: usize) -> Result<Vec<String>, JsonError> {
    let mut t = Tokenizer::new(opts);
    let mut c = Collect::default();
    for part in text.chunks(chunk.max(1)) {
        t.feed(part, &mut c)?;
    }
    t.finish(&mut c)?;
    Ok(c.0)
}

fn tokens(text: &[u8], chunk: usize) -> Result<Vec<String>, JsonError> {
    tokens_with(Options::TRACE, text, chunk)
}

#[test]
fn reads_every_kind_of_token_in_any_chunking() {
    let text = br#" {"a": [1, -2.5e3, true, false, null, "x\"\\\/\n\u00e9\ud83d\ude00"], "b": {}, "c": [], "d": NaN, "e": -Infinity, "f": -0.0E+2} "#;
    let want = tokens(text, text.len()).unwrap();
    assert_eq!(
        want.join(" "),
        "{ K:a [ N:1 N:-2.5e3 B:true B:false null S:x\"\\/\né😀 ] K:b { } K:c [ ] K:d N:NaN K:e N:-inf K:f N:-0.0E+2 }"
    );
    for chunk in 1..text.len() {
        assert_eq!(tokens(text, chunk).unwrap(), want, "chunk {chunk}");
        assert_eq!(tokens_with(Options::CONFIG, text, chunk).unwrap(), want);
    }
}

#[test]
fn multibyte_characters_split_across_chunks_survive() {
    let text = "[\"日本語 ü 😀\"]".as_bytes();
    for chunk in 1..6 {
        assert_eq!(tokens(text, chunk).unwrap()[1], "S:日本語 ü 😀");
    }
}

#[test]
fn malformed_input_is_an_error_with_its_offset() {
    let cases: &[(&[u8], u64, &str)] = &[
        (b"{\"a\": [1, 2", 11, "unterminated array"),
        (
            b"{\"a\" 1}",
            5,
            "expected `:` after the key \"a\", found `1`",
        ),
        (b"[01]", 2, "no leading zeros"),
        (b"[1.]", 3, "expected a digit after the decimal point"),
        (b"[1e+]", 4, "expected a digit in the exponent"),
        (b"[-x]", 2, "expected a digit after `-`"),
        (b"[-Inf]", 2, "expected a digit after `-`"),
        (b"[tru]", 1, "unexpected word `tru`"),
        (b"[True]", 1, "`True` is Python; JSON writes `true`"),
        (
            b"{\"a\":1]",
            6,
            "expected `,` or `}` after an object member, found `]`",
        ),
        (b"[1] x", 4, "unexpected `x` after the JSON value"),
        (b"[\"\\x\"]", 3, "invalid escape `\\x`"),
        (
            b"[\"\\u12G4\"]",
            6,
            "expected 4 hex digits after \\u, found `G`",
        ),
        (b"", 0, "no JSON value: the text is empty"),
        (b"  ", 2, "no JSON value: the text is empty"),
        (b"{\"a\": \"cut", 6, "unterminated string"),
        (b"{,}", 1, "expected a key in double quotes, found `,`"),
        (b"[1,]", 3, "trailing comma before `]`"),
        (b"{\"a\":1,}", 7, "trailing comma before `}`"),
        (b"['a']", 1, "strings use double quotes"),
        (b"[1 /* c */]", 3, "comments are not JSON"),
        (b"[1 /]", 3, "found `/`"),
        (b"[\xc3\xa9]", 1, "found `\u{e9}`"),
        (b"[\xff]", 1, "found byte 0xff"),
        (b"[1\xf0\x9f\x98\x80]", 2, "found `\u{1F600}`"),
        (b"{\"a\"\xc3\xa9", 4, "found `\u{e9}`"),
        (b"[\"\\\xc3\xa9\"]", 3, "invalid escape `\\\u{e9}`"),
        (b"[\xf0\x9f", 1, "found byte 0xf0"),
        (b"[\x0b]", 1, "found character U+000B"),
    ];
    for (text, offset, msg) in cases {
        for chunk in [1, 2, 3, 64] {
            let e = tokens(text, chunk).unwrap_err();
            let shown = String::from_utf8_lossy(text);
            assert!(e.message.contains(msg), "{shown:?}: {}", e.message);
            assert_eq!(e.offset, *offset, "{shown:?} in chunks of {chunk}");
        }
    }
}

#[test]
fn errors_at_the_end_say_the_text_was_cut_short() {
    for text in [
        &b"{\"a\": [1, 2"[..],
        b"[\"abc",
        b"{\"a\"",
        b"[1.",
        b"[-",
        b"[tr",
        b"[-Inf",
    ] {
        let e = tokens(text, 64).unwrap_err();
        assert_eq!(e.kind, ErrorKind::CutShort, "{}", e.message);
    }
    assert_eq!(tokens(b" ", 64).unwrap_err().kind, ErrorKind::Empty);
}

#[test]
fn the_options_set_strictness() {
    // Traces: control characters kept, a top-level array may stay open.
    assert_eq!(tokens(b"[\"a\tb\"]", 64).unwrap()[1], "S:a\tb");
    let e = tokens_with(Options::CONFIG, b"[\"a\tb\"]", 64).unwrap_err();
    assert!(e.message.starts_with("control character"), "{}", e.message);
    for open in [&b"[{\"a\":1},"[..], b"[{\"a\":1}", b"[{\"a\":1}, "] {
        assert_eq!(tokens(open, 64).unwrap().join(" "), "[ { K:a N:1 } ]");
        let e = tokens_with(Options::CONFIG, open, 64).unwrap_err();
        assert_eq!(e.kind, ErrorKind::CutShort);
    }
    assert!(tokens(b"{\"t\":[{\"a\":1},", 64).is_err());
    // Numbers: at most 400 characters in traces.
    let long = format!("[{}]", "1".repeat(401));
    let e = tokens(long.as_bytes(), 64).unwrap_err();
    assert!(e.message.contains("longer than 400"), "{}", e.message);
    assert!(tokens_with(Options::CONFIG, long.as_bytes(), 64).is_ok());
}

#[test]
fn errors_are_located_by_line_and_column() {
    let text = "{\n  \"é\": 1,\n}";
    let e = tokens_with(Options::CONFIG, text.as_bytes(), 64)
        .unwrap_err()
        .located(text);
    assert_eq!((e.line, e.column), (3, 1));
    assert_eq!(
        e.to_string(),
        "line 3, column 1: trailing comma before `}` (JSON allows none)"
    );
    let e = tokens(b"[1 2]", 64).unwrap_err();
    assert_eq!(
        e.to_string(),
        "byte 3: expected `,` or `]` after an array element, found `2`"
    );
    let e = Tokenizer::new(Options::TRACE)
        .starting_at(10)
        .feed(b"[}", &mut Collect::default())
        .unwrap_err();
    assert_eq!(e.offset, 11);
}

#[test]
fn the_quote_finder_agrees_with_a_plain_search() {
    let mut text: Vec<u8> = Vec::new();
    for i in 0..300u32 {
        text.push([b'a', 0x80, 0xff, 0x21, 0x23, 0x5b, 0x5d, 0x01, 0x00][(i * 7 % 9) as usize]);
    }
    for at in 0..text.len() {
        for q in [b'"', b'\\'] {
            let mut t = text.clone();
            t[at] = q;
            for start in [0, 1, 5, 9] {
                let s = &t[start.min(at)..];
                let want = s.iter().position(|&c| c == b'"' || c == b'\\');
                assert_eq!(find_quote_or_backslash(s), want, "at {at} start {start}");
            }
        }
    }
    assert_eq!(find_quote_or_backslash(&text), None);
}

#[test]
fn deep_nesting_is_refused_without_recursion() {
    let max = Options::TRACE.max_depth;
    let deep = "[".repeat(max + 1);
    let e = tokens(deep.as_bytes(), 7).unwrap_err();
    assert_eq!(e.message, "nested deeper than 1000 levels");
    assert_eq!(e.kind, ErrorKind::TooDeep);
    let ok = format!("{}{}", "[".repeat(max), "]".repeat(max));
    assert_eq!(tokens(ok.as_bytes(), 3).unwrap().len(), 2 * max);
}

#[test]
fn lone_surrogates_and_bad_utf8_become_replacement_characters() {
    let t = tokens(
        b"[\"a\\ud800b\", \"\\udc00\", \"\xff\", \"\\ud800\\ud800\\udc00\"]",
        64,
    )
    .unwrap();
    assert_eq!(t[1], "S:a\u{FFFD}b");
    assert_eq!(t[2], "S:\u{FFFD}");
    assert_eq!(t[3], "S:\u{FFFD}");
    assert_eq!(t[4], "S:\u{FFFD}\u{10000}");
}

#[test]
fn a_refusing_sink_stops_the_tokenizer() {
    struct No;
    impl Sink for No {
        fn token(&mut self, _: Token<'_>) -> Result<(), String> {
            Err("no".into())
        }
    }
    let e = Tokenizer::new(Options::CONFIG)
        .feed(b"  [", &mut No)
        .unwrap_err();
    assert_eq!(
        (e.offset, e.kind, e.message.as_str()),
        (2, ErrorKind::Refused, "no")
    );
}
