// A tiny protocol bot: answers every request with its first legal action.
use std::io::{self, BufRead, Write};

fn main() {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for line in io::stdin().lock().lines() {
        let line = line.unwrap();
        if line.contains("\"type\":\"hello\"") {
            writeln!(out, "{{\"type\":\"ready\",\"protocol\":1,\"name\":\"tiny rust\"}}").unwrap();
        } else if line.contains("\"type\":\"request\"") {
            let rest = &line[line.find("\"id\":").unwrap() + 5..];
            let id: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            let rest = &line[line.find("\"legal_actions\":[\"").unwrap() + 18..];
            let action = &rest[..rest.find('"').unwrap()];
            writeln!(out, "{{\"type\":\"action\",\"id\":{},\"action\":\"{}\"}}", id, action).unwrap();
        } else if line.contains("\"type\":\"shutdown\"") {
            return;
        }
        out.flush().unwrap();
    }
}
