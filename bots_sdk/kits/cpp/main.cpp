// A Las Vegas Arena bot in C++: the whole protocol in one file (docs/protocol.md).
//
// The referee writes one JSON object per line on stdin; this program answers
// "hello" with "ready" and every "request" with one "action" line on stdout.
// stdout is for protocol lines only: std::cout, printf() and anything else
// written to file descriptor 1 is sent to stderr, the bot's log (see main()).
// What you log while deciding is kept with that decision (std::cerr, or end
// std::cout lines with std::endl: a buffered line would land later), and
// `note` (256 bytes) goes with your answer: the replay shows both at each of
// your decisions, to you alone.
//
// Edit choose() below; the rest is plumbing you can keep as it is.
// Build: g++ -std=c++20 -O2 -o bot main.cpp      Run: ./bot
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

static const std::string BOT_NAME = "starter-cpp";

// ---------------------------------------------------------------- JSON reader
// A JSON value. Looking up a missing key or index gives null, never throws,
// so code reading the observation survives fields it does not know.
struct Json {
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    std::string text;                // String: decoded UTF-8; Number: as written
    std::vector<Json> items;         // Array items, or Object values
    std::vector<std::string> keys;   // Object keys, in order

    const Json& operator[](const std::string& key) const {
        for (size_t i = 0; i < keys.size(); i++)
            if (keys[i] == key) return items[i];
        return null();
    }
    const Json& operator[](size_t i) const {
        return kind == Kind::Array && i < items.size() ? items[i] : null();
    }
    size_t size() const { return kind == Kind::Array ? items.size() : 0; }
    bool is_integer() const {
        return kind == Kind::Number && text.find_first_of(".eE") == std::string::npos;
    }
    // Numbers as written: stoll/stod throw only on overflow, which is caught where read.
    int64_t as_int(int64_t otherwise = 0) const {
        return is_integer() ? static_cast<int64_t>(std::stoll(text)) : otherwise;
    }
    double as_double(double otherwise = 0) const {
        return kind == Kind::Number ? std::stod(text) : otherwise;
    }
    const std::string& str() const { return text; }  // "" unless a string (or number)
    static const Json& null() {
        static const Json none;
        return none;
    }
};

// Parses one line; throws std::runtime_error on anything that is not JSON.
class Parser {
public:
    explicit Parser(const std::string& s) : s_(s) {}

    Json document() {
        Json value = parse(0);
        ws();
        if (i_ != s_.size()) fail("text after the value");
        return value;
    }

private:
    const std::string& s_;
    size_t i_ = 0;

    [[noreturn]] void fail(const char* what) {
        throw std::runtime_error(std::string(what) + " at byte " + std::to_string(i_));
    }
    void ws() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) i_++;
    }
    char peek() { return i_ < s_.size() ? s_[i_] : '\0'; }
    void expect(char c) {
        if (peek() != c) fail("unexpected character");
        i_++;
    }
    bool literal(const char* word) {
        size_t n = std::char_traits<char>::length(word);
        if (s_.compare(i_, n, word) != 0) return false;
        i_ += n;
        return true;
    }

    Json parse(int depth) {
        if (depth > 512) fail("nested too deep");  // the stack is not endless
        ws();
        Json v;
        char c = peek();
        if (c == '{' || c == '[') {
            v.kind = c == '{' ? Json::Kind::Object : Json::Kind::Array;
            char close = c == '{' ? '}' : ']';
            i_++;
            ws();
            if (peek() == close) { i_++; return v; }
            for (;;) {
                if (close == '}') {
                    ws();
                    v.keys.push_back(string());
                    ws();
                    expect(':');
                }
                v.items.push_back(parse(depth + 1));
                ws();
                if (peek() == close) { i_++; return v; }
                expect(',');
            }
        }
        if (c == '"') { v.kind = Json::Kind::String; v.text = string(); return v; }
        if (literal("true") || literal("false")) { v.kind = Json::Kind::Bool; v.boolean = c == 't'; return v; }
        if (literal("null")) return v;
        size_t start = i_;  // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
        auto digits = [&] { size_t from = i_; while (isdigit(peek())) i_++; return i_ > from; };
        if (peek() == '-') i_++;
        if (peek() == '0') i_++;
        else if (!digits()) fail("not a JSON value");
        if (peek() == '.') { i_++; if (!digits()) fail("bad number"); }
        if (peek() == 'e' || peek() == 'E') {
            i_++;
            if (peek() == '+' || peek() == '-') i_++;
            if (!digits()) fail("bad number");
        }
        v.kind = Json::Kind::Number;
        v.text = s_.substr(start, i_ - start);
        return v;
    }
    static bool isdigit(char c) { return c >= '0' && c <= '9'; }

    unsigned hex4() {
        unsigned v = 0;
        for (int k = 0; k < 4; k++) {
            char c = peek();
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) fail("bad \\u escape");
            v = v * 16 + static_cast<unsigned>(d);
            i_++;
        }
        return v;
    }
    std::string string() {
        expect('"');
        std::string out;
        for (;;) {
            if (i_ >= s_.size()) fail("unterminated string");
            char c = s_[i_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
            if (c != '\\') { out += c; continue; }
            char e = peek();
            i_++;
            switch (e) {
                case '"': case '\\': case '/': out += e; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned cp = hex4();
                    if (cp >= 0xD800 && cp <= 0xDBFF && s_.compare(i_, 2, "\\u") == 0) {
                        size_t back = i_;  // a surrogate pair is one code point
                        i_ += 2;
                        unsigned low = hex4();
                        if (low >= 0xDC00 && low <= 0xDFFF) cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                        else i_ = back;
                    }
                    if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;  // lone surrogate: replacement character
                    utf8(out, cp);
                    break;
                }
                default: fail("bad escape");
            }
        }
    }
    static void utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) { out += static_cast<char>(cp); return; }
        if (cp < 0x800) { out += static_cast<char>(0xC0 | cp >> 6); }
        else {
            if (cp < 0x10000) { out += static_cast<char>(0xE0 | cp >> 12); }
            else { out += static_cast<char>(0xF0 | cp >> 18); out += static_cast<char>(0x80 | (cp >> 12 & 0x3F)); }
            out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
        }
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
};

// ----------------------------------------------------------------- randomness
// splitmix64 (Steele, Lea, Flood 2014): small and well known. Seeded from
// bot_seed at each new game, so the same seed gives the same choices.
struct SplitMix64 {
    uint64_t state = 0;
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    size_t below(size_t n) { return static_cast<size_t>(next() % n); }  // in [0, n), n > 0
};

// ------------------------------------------------------------------ your bot
struct Bot {
    int64_t seat = -1;          // this game's seat (0-based), from new_game
    Json game;                  // the game description: rules, options, seats
    int64_t time_left_ms = 0;   // how long this decision may take
    std::string note;           // a note for you, sent with this decision's answer (UTF-8)
    SplitMix64 rng;

    // ===== choose(observation) -> action: the one place to edit =====
    // `observation` (docs/observation.md): casinos, the roll, money,
    // "decision" ("place", "kick", ...) and "legal_actions", the strings you
    // may answer (grammar in docs/actions.md). Return one of them, verbatim.
    // Read fields like observation["round"].as_int() or
    // observation["casinos"][0]["notes"]. Answer within time_left_ms (the
    // referee's clock includes the pipe: keep a margin), or the seat forfeits
    // the game. This one plays at random.
    std::string choose(const Json& observation) {
        const Json& legal = observation["legal_actions"];
        note = std::to_string(legal.size()) + " legal actions";  // shown in the replay
        // Always at least 2: a forced action is never asked.
        return legal[rng.below(legal.size() ? legal.size() : 1)].str();
    }
};

// ------------------------------------------------------------------ protocol
// s as a JSON string: quotes, backslashes and control characters escaped.
static std::string quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') { out += '\\'; out += c; }
        else if (static_cast<unsigned char>(c) < 0x20) {
            char buffer[8];
            std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c));
            out += buffer;
        } else out += c;
    }
    return out + "\"";
}

int main() {
    std::ios::sync_with_stdio(false);
    int fd = dup(1);  // keep the real stdout for protocol lines ...
    FILE* out = fd >= 0 ? fdopen(fd, "w") : nullptr;
    if (!out || dup2(2, 1) < 0) { std::perror("stdout"); return 1; }  // ... and log the rest
    auto send = [out](const std::string& line) {
        std::fputs((line + "\n").c_str(), out);
        std::fflush(out);  // a reply left in the buffer is a timeout
    };

    Bot bot;
    std::string line;
    while (std::getline(std::cin, line)) {
        try {
            Json message = Parser(line).document();
            const std::string& type = message["type"].str();
            if (type == "hello") {
                send("{\"type\":\"ready\",\"protocol\":1,\"name\":" + quote(BOT_NAME) + "}");
            } else if (type == "new_game") {
                bot.seat = message["seat"].as_int(-1);
                bot.game = message["game"];
                bot.rng.state = static_cast<uint64_t>(message["bot_seed"].as_int());
            } else if (type == "request") {
                bot.time_left_ms = message["time_left_ms"].as_int();
                bot.note.clear();
                std::string action = bot.choose(message["observation"]);
                send("{\"type\":\"action\",\"id\":" + std::to_string(message["id"].as_int()) +
                     ",\"action\":" + quote(action) +
                     (bot.note.empty() ? "" : ",\"note\":" + quote(bot.note)) + "}");
            } else if (type == "shutdown") {
                return 0;
            }  // game_over and unknown types: nothing to answer
        } catch (const std::exception& error) {  // not JSON, or a number out of range
            std::cerr << "ignored a line (" << error.what() << "): " << line.substr(0, 200) << "\n";
        }
    }
    return 0;
}
