// A Las Vegas Arena bot in Java: the whole protocol in one file (docs/protocol.md).
//
// The referee writes one JSON object per line on stdin; this program answers
// "hello" with "ready" and every "request" with one "action" line on stdout.
// stdout is for protocol lines only: System.out is pointed at stderr, the
// bot's log, so System.out.println() is safe (see main()). What you log while
// deciding is kept with that decision, and `note` (256 bytes) goes with your
// answer: the replay shows both at each of your decisions, to you alone.
//
// Edit choose() below; the rest is plumbing you can keep as it is.
// Build: javac -encoding UTF-8 -d build main.java      Run: java -cp build Main
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

class Main {
    static final String BOT_NAME = "starter-java";

    // ------------------------------------------------------------------ your bot
    static long seat = -1;              // this game's seat (0-based), from new_game
    static Map<?, ?> game = Map.of();   // the game description: rules, options, seats
    static long timeLeftMs;             // how long this decision may take
    static String note = "";            // a note for you, sent with this decision's answer
    static final SplitMix64 rng = new SplitMix64();

    // ===== choose(observation) -> action: the one place to edit =====
    // `observation` (docs/observation.md): casinos, the roll, money,
    // "decision" ("place", "kick", ...) and "legal_actions", the strings you
    // may answer (grammar in docs/actions.md). Return one of them, verbatim.
    // JSON objects are Maps, arrays Lists, numbers Long (integers) or Double,
    // e.g. (Long) observation.get("round"). Answer within timeLeftMs (the
    // referee's clock includes the pipe: keep a margin), or the seat forfeits
    // the game. This one plays at random.
    static String choose(Map<?, ?> observation) {
        List<?> legal = (List<?>) observation.get("legal_actions");
        note = legal.size() + " legal actions"; // shown in the replay at this decision
        // Always at least 2: a forced action is never asked.
        return (String) legal.get(rng.below(legal.size()));
    }

    // ------------------------------------------------------------------ protocol
    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err); // keep the real stdout for protocol lines, log the rest
        InputStream in = new BufferedInputStream(System.in);
        for (String line; (line = readLine(in)) != null; ) {
            Map<?, ?> message;
            try {
                message = (Map<?, ?>) new Json(line).document();
            } catch (IllegalArgumentException | ClassCastException error) {
                System.err.println("ignored a line (" + error.getMessage() + "): " + line);
                continue;
            }
            Object type = message.get("type");
            if ("hello".equals(type)) {
                send(out, "{\"type\":\"ready\",\"protocol\":1,\"name\":" + quote(BOT_NAME) + "}");
            } else if ("new_game".equals(type)) {
                seat = number(message.get("seat"), -1);
                game = message.get("game") instanceof Map<?, ?> g ? g : Map.of();
                rng.state = number(message.get("bot_seed"), 0);
            } else if ("request".equals(type)) {
                timeLeftMs = number(message.get("time_left_ms"), 0);
                note = "";
                String action = choose((Map<?, ?>) message.get("observation"));
                send(out, "{\"type\":\"action\",\"id\":" + number(message.get("id"), 0)
                        + ",\"action\":" + quote(action)
                        + (note.isEmpty() ? "" : ",\"note\":" + quote(note)) + "}");
            } else if ("shutdown".equals(type)) {
                break;
            } // game_over and unknown types: nothing to answer
        }
        out.flush();
        System.exit(0); // at once, even if the author started threads
    }

    // One line, up to "\n" (readLine() would also split at a "\r", which JSON
    // allows as whitespace inside a line); null at end of input.
    static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b; (b = in.read()) != '\n'; line.write(b)) {
            if (b < 0) return line.size() > 0 ? line.toString(StandardCharsets.UTF_8) : null;
        }
        return line.toString(StandardCharsets.UTF_8);
    }

    static void send(PrintStream out, String line) {
        out.print(line + "\n");
        out.flush(); // a reply left in the buffer is a timeout
    }

    static long number(Object value, long otherwise) {
        return value instanceof Long n ? n : otherwise;
    }

    // s as a JSON string, in ASCII: whatever the platform's default charset, it
    // arrives intact.
    static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c < 0x20 || c > 0x7E) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        return out.append('"').toString();
    }
}

// splitmix64 (Steele, Lea, Flood 2014): small and well known. Seeded from
// bot_seed at each new game, so the same seed gives the same choices.
class SplitMix64 {
    long state;

    long next() {
        long z = (state += 0x9E3779B97F4A7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    int below(int n) { // in [0, n), n > 0
        return (int) Long.remainderUnsigned(next(), n);
    }
}

// A JSON reader: objects become LinkedHashMaps, arrays ArrayLists, strings
// Strings, integers Long (Double if too big), other numbers Double, true/false
// Boolean, null null. Throws IllegalArgumentException on anything not JSON.
class Json {
    private final String s;
    private int i;

    Json(String text) {
        s = text;
    }

    Object document() {
        Object value = parse(0);
        ws();
        if (i != s.length()) fail("text after the value");
        return value;
    }

    private IllegalArgumentException fail(String what) {
        throw new IllegalArgumentException(what + " at character " + i);
    }

    private void ws() {
        while (i < s.length() && " \t\n\r".indexOf(s.charAt(i)) >= 0) i++;
    }

    private char peek() {
        return i < s.length() ? s.charAt(i) : '\0';
    }

    private void expect(char c) {
        if (peek() != c) fail("expected '" + c + "'");
        i++;
    }

    private Object parse(int depth) {
        if (depth > 512) fail("nested too deep"); // the stack is not endless
        ws();
        char c = peek();
        if (c == '{') {
            Map<String, Object> object = new LinkedHashMap<>();
            i++;
            ws();
            if (peek() == '}') { i++; return object; }
            for (;;) {
                ws();
                String key = string();
                ws();
                expect(':');
                object.put(key, parse(depth + 1));
                ws();
                if (peek() != ',') break;
                i++;
            }
            expect('}');
            return object;
        }
        if (c == '[') {
            List<Object> array = new ArrayList<>();
            i++;
            ws();
            if (peek() == ']') { i++; return array; }
            for (;;) {
                array.add(parse(depth + 1));
                ws();
                if (peek() != ',') break;
                i++;
            }
            expect(']');
            return array;
        }
        if (c == '"') return string();
        if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
        if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
        if (s.startsWith("null", i)) { i += 4; return null; }
        return number();
    }

    private boolean digits() {
        int from = i;
        while (peek() >= '0' && peek() <= '9') i++;
        return i > from;
    }

    private Object number() { // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
        int start = i;
        boolean integer = true;
        if (peek() == '-') i++;
        if (peek() == '0') i++;
        else if (!digits()) fail("not a JSON value");
        if (peek() == '.') {
            i++;
            integer = false;
            if (!digits()) fail("bad number");
        }
        if (peek() == 'e' || peek() == 'E') {
            i++;
            integer = false;
            if (peek() == '+' || peek() == '-') i++;
            if (!digits()) fail("bad number");
        }
        String text = s.substring(start, i);
        if (integer) {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException tooBig) {
                // falls through to Double
            }
        }
        return Double.parseDouble(text);
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        for (;;) {
            if (i >= s.length()) fail("unterminated string");
            char c = s.charAt(i++);
            if (c == '"') return out.toString();
            if (c < 0x20) fail("control character in a string");
            if (c != '\\') { out.append(c); continue; }
            char e = peek();
            i++;
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                // Java strings are UTF-16, like JSON escapes: a surrogate pair
                // is two chars as it is (quote() escapes them back the same).
                case 'u' -> out.append(hex4());
                default -> fail("bad escape");
            }
        }
    }

    private char hex4() {
        if (i + 4 > s.length()) fail("bad \\u escape");
        int v = 0;
        for (int k = 0; k < 4; k++) {
            char c = s.charAt(i++);
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) fail("bad \\u escape");
            v = v * 16 + d;
        }
        return (char) v;
    }
}
