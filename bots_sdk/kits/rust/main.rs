//! A Las Vegas Arena bot in Rust: the whole protocol in one file (docs/protocol.md).
//!
//! The referee writes one JSON object per line on stdin; this program answers
//! "hello" with "ready" and every "request" with one "action" line on stdout.
//! stdout is for protocol lines only: log with eprintln!, never println!.
//! What you log while deciding is kept with that decision, and `self.note`
//! (256 bytes) goes with your answer: the replay shows both at each of your
//! decisions, to you alone.
//!
//! Edit choose() below; the rest is plumbing you can keep as it is.
//! Build: rustc --edition 2021 -C opt-level=2 -o bot main.rs      Run: ./bot

use std::io::{self, BufRead, Write};

const BOT_NAME: &str = "starter-rust";

// ------------------------------------------------------------------- your bot
#[allow(dead_code)] // what your choose() may read
struct Bot {
    seat: i64,         // this game's seat (0-based), from new_game
    game: Json,        // the game description: rules, options, seats
    time_left_ms: i64, // how long this decision may take
    note: String,      // a note for you, sent with this decision's answer
    rng: SplitMix64,
}

impl Bot {
    /// ===== choose(observation) -> action: the one place to edit =====
    /// `observation` (docs/observation.md): casinos, the roll, money,
    /// "decision" ("place", "kick", ...) and "legal_actions", the strings you
    /// may answer (grammar in docs/actions.md). Return one of them, verbatim.
    /// Read fields like `observation.get("round").as_i64()` or
    /// `observation.get("casinos").at(0).get("notes")`. Answer within
    /// time_left_ms (the referee's clock includes the pipe: keep a margin),
    /// or the seat forfeits the game. This one plays at random.
    fn choose(&mut self, observation: &Json) -> String {
        let legal = observation.get("legal_actions").items();
        self.note = format!("{} legal actions", legal.len()); // shown in the replay
        // Always at least 2: a forced action is never asked.
        let pick = self.rng.below(legal.len().max(1));
        legal.get(pick).and_then(Json::as_str).unwrap_or("").to_string()
    }
}

// ------------------------------------------------------------------- protocol
fn main() {
    let mut bot =
        Bot { seat: -1, game: Json::Null, time_left_ms: 0, note: String::new(), rng: SplitMix64(0) };
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => break, // end of input: as shutdown
            Ok(_) => {}
            Err(error) => {
                eprintln!("stdin: {}", error);
                break;
            }
        }
        let message = match Parser::document(&line) {
            Ok(message) => message,
            Err(error) => {
                eprintln!("ignored a line ({}): {}", error, String::from_utf8_lossy(&line).trim_end());
                continue;
            }
        };
        let reply = match message.get("type").as_str().unwrap_or("") {
            "hello" => format!("{{\"type\":\"ready\",\"protocol\":1,\"name\":{}}}", quote(BOT_NAME)),
            "new_game" => {
                bot.seat = message.get("seat").as_i64().unwrap_or(-1);
                bot.game = message.get("game").clone();
                bot.rng = SplitMix64(message.get("bot_seed").as_i64().unwrap_or(0) as u64);
                continue;
            }
            "request" => {
                bot.time_left_ms = message.get("time_left_ms").as_i64().unwrap_or(0);
                bot.note.clear();
                let action = bot.choose(message.get("observation"));
                let id = message.get("id").as_i64().unwrap_or(0);
                let note = if bot.note.is_empty() { String::new() } else { format!(",\"note\":{}", quote(&bot.note)) };
                format!("{{\"type\":\"action\",\"id\":{},\"action\":{}{}}}", id, quote(&action), note)
            }
            "shutdown" => break,
            _ => continue, // game_over and unknown types: nothing to answer
        };
        // A reply left in the buffer is a timeout: flush every line.
        if writeln!(out, "{}", reply).and_then(|_| out.flush()).is_err() {
            break; // the referee is gone
        }
    }
}

/// `s` as a JSON string: quotes, backslashes and control characters escaped.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

// ----------------------------------------------------------------- randomness
/// splitmix64 (Steele, Lea, Flood 2014): small and well known. Seeded from
/// bot_seed at each new game, so the same seed gives the same choices.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number in [0, n), n > 0.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

// ---------------------------------------------------------------- JSON reader
/// A JSON value. Looking up a missing key or index gives Null, never panics,
/// so code reading the observation survives fields it does not know.
#[derive(Clone, Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(String), // as written: read it with as_i64 or as_f64
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

static NULL: Json = Json::Null;

#[allow(dead_code)] // the accessors your choose() may use
impl Json {
    fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(members) => members.iter().find(|m| m.0 == key).map_or(&NULL, |m| &m.1),
            _ => &NULL,
        }
    }
    fn at(&self, index: usize) -> &Json {
        self.items().get(index).unwrap_or(&NULL)
    }
    fn items(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            _ => &[],
        }
    }
    fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
    /// An integer that fits (no fraction or exponent), else None.
    fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Number(text) => text.parse().ok(),
            _ => None,
        }
    }
    fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(text) => text.parse().ok(),
            _ => None,
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    /// The one JSON value of `text` (whitespace around it allowed), or why not.
    fn document(text: &'a [u8]) -> Result<Json, String> {
        let mut p = Parser { s: text, i: 0 };
        let value = p.value(0)?;
        p.ws();
        if p.i != p.s.len() {
            return p.fail("text after the value");
        }
        Ok(value)
    }

    fn fail<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{} at byte {}", what, self.i))
    }
    fn peek(&self) -> u8 {
        self.s.get(self.i).copied().unwrap_or(0)
    }
    fn ws(&mut self) {
        while matches!(self.peek(), b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }
    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.peek() != c {
            return self.fail(&format!("expected '{}'", c as char));
        }
        self.i += 1;
        Ok(())
    }
    fn literal(&mut self, word: &str) -> bool {
        let found = self.s[self.i..].starts_with(word.as_bytes());
        if found {
            self.i += word.len();
        }
        found
    }
    fn digits(&mut self) -> bool {
        let from = self.i;
        while self.peek().is_ascii_digit() {
            self.i += 1;
        }
        self.i > from
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > 512 {
            return self.fail("nested too deep"); // the stack is not endless
        }
        self.ws();
        match self.peek() {
            b'{' | b'[' => {
                let object = self.peek() == b'{';
                let close = if object { b'}' } else { b']' };
                let (mut members, mut items) = (Vec::new(), Vec::new());
                self.i += 1;
                self.ws();
                if self.peek() != close {
                    loop {
                        self.ws();
                        if object {
                            let key = self.string()?;
                            self.ws();
                            self.expect(b':')?;
                            members.push((key, self.value(depth + 1)?));
                        } else {
                            items.push(self.value(depth + 1)?);
                        }
                        self.ws();
                        if self.peek() != b',' {
                            break;
                        }
                        self.i += 1;
                    }
                }
                self.expect(close)?;
                Ok(if object { Json::Object(members) } else { Json::Array(items) })
            }
            b'"' => Ok(Json::Str(self.string()?)),
            _ if self.literal("true") => Ok(Json::Bool(true)),
            _ if self.literal("false") => Ok(Json::Bool(false)),
            _ if self.literal("null") => Ok(Json::Null),
            _ => {
                // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
                let start = self.i;
                if self.peek() == b'-' {
                    self.i += 1;
                }
                if self.peek() == b'0' {
                    self.i += 1;
                } else if !self.digits() {
                    return self.fail("not a JSON value");
                }
                if self.peek() == b'.' {
                    self.i += 1;
                    if !self.digits() {
                        return self.fail("bad number");
                    }
                }
                if matches!(self.peek(), b'e' | b'E') {
                    self.i += 1;
                    if matches!(self.peek(), b'+' | b'-') {
                        self.i += 1;
                    }
                    if !self.digits() {
                        return self.fail("bad number");
                    }
                }
                Ok(Json::Number(String::from_utf8_lossy(&self.s[start..self.i]).into_owned()))
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let text = self.s.get(self.i..self.i + 4).unwrap_or(b"");
        let digits = std::str::from_utf8(text).unwrap_or("");
        match u32::from_str_radix(digits, 16) {
            Ok(v) if digits.len() == 4 && digits.bytes().all(|b| b.is_ascii_hexdigit()) => {
                self.i += 4;
                Ok(v)
            }
            _ => self.fail("bad \\u escape"),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let c = self.peek();
            if self.i >= self.s.len() {
                return self.fail("unterminated string");
            }
            self.i += 1;
            match c {
                b'"' => return Ok(String::from_utf8_lossy(&out).into_owned()),
                0..=0x1F => return self.fail("control character in a string"),
                b'\\' => {
                    let e = self.peek();
                    self.i += 1;
                    let decoded = match e {
                        b'"' | b'\\' | b'/' => e as char,
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let mut cp = self.hex4()?;
                            if (0xD800..0xDC00).contains(&cp) && self.s[self.i..].starts_with(b"\\u") {
                                let back = self.i; // a surrogate pair is one code point
                                self.i += 2;
                                match self.hex4()? {
                                    low @ 0xDC00..=0xDFFF => cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00),
                                    _ => self.i = back,
                                }
                            }
                            // A lone surrogate is no char: the replacement character.
                            char::from_u32(cp).unwrap_or('\u{FFFD}')
                        }
                        _ => return self.fail("bad escape"),
                    };
                    out.extend_from_slice(decoded.encode_utf8(&mut [0; 4]).as_bytes());
                }
                _ => out.push(c),
            }
        }
    }
}
