/* A Las Vegas Arena bot in C: the whole protocol in one file (docs/protocol.md).
 *
 * The referee writes one JSON object per line on stdin; this program answers
 * "hello" with "ready" and every "request" with one "action" line on stdout.
 * stdout is for protocol lines only: printf() and everything else written to
 * file descriptor 1 is sent to stderr, the bot's log (see main()). What you
 * log while deciding is kept with that decision, and `note` (256 bytes) goes
 * with your answer: the replay shows both at each of your decisions, to you
 * alone.
 *
 * Edit choose() below; the rest is plumbing you can keep as it is.
 * Build: gcc -std=c17 -O2 -o bot main.c -lm      Run: ./bot
 */
#define _POSIX_C_SOURCE 200809L /* getline, fdopen, dup */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *BOT_NAME = "starter-c";

/* --------------------------------------------------------------- JSON reader
 * A reader over the text of one line: a value is a pointer to its first
 * character. json_valid() checks a whole line once; the accessors then walk
 * the text and return NULL for "missing" or "not that type", never crash. */

static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

static int hex4(const char *p) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/* Past the value at p (which must start there), or NULL when it is not JSON.
 * Depth is bounded so a hostile line cannot overflow the stack. */
static const char *skip_value(const char *p, int depth) {
    if (depth > 512) return NULL;
    p = skip_ws(p);
    if (*p == '"') {
        for (p++; *p != '"'; p++) {
            if ((unsigned char)*p < 0x20) return NULL; /* also the line's end */
            if (*p == '\\') {
                p++;
                if (*p == 'u') {
                    if (hex4(p + 1) < 0) return NULL;
                    p += 4;
                } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
                    return NULL;
                }
            }
        }
        return p + 1;
    }
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = skip_ws(p + 1);
        if (*p == close) return p + 1;
        for (;;) {
            if (close == '}') {
                if (*p != '"' || !(p = skip_value(p, depth + 1))) return NULL;
                p = skip_ws(p);
                if (*p++ != ':') return NULL;
            }
            if (!(p = skip_value(p, depth + 1))) return NULL;
            p = skip_ws(p);
            if (*p == close) return p + 1;
            if (*p++ != ',') return NULL;
            p = skip_ws(p);
        }
    }
    if (strncmp(p, "true", 4) == 0 || strncmp(p, "null", 4) == 0) return p + 4;
    if (strncmp(p, "false", 5) == 0) return p + 5;
    const char *start = p; /* a number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
    if (*p == '-') p++;
    if (*p == '0') p++;
    else if (*p >= '1' && *p <= '9') while (*p >= '0' && *p <= '9') p++;
    else return NULL;
    if (*p == '.') {
        if (*++p < '0' || *p > '9') return NULL;
        while (*p >= '0' && *p <= '9') p++;
    }
    if (*p == 'e' || *p == 'E') {
        if (*++p == '+' || *p == '-') p++;
        if (*p < '0' || *p > '9') return NULL;
        while (*p >= '0' && *p <= '9') p++;
    }
    return p > start ? p : NULL;
}

/* Is the whole line one JSON object? */
int json_valid(const char *line) {
    const char *p = skip_ws(line);
    if (*p != '{' || !(p = skip_value(p, 0))) return 0;
    return *skip_ws(p) == '\0';
}

/* The decoded UTF-8 of the string at v (malloc'ed, NUL-terminated, *len bytes,
 * which may hold NULs from \u0000), or NULL when v is not a string. */
char *json_string(const char *v, size_t *len) {
    if (!v || *(v = skip_ws(v)) != '"') return NULL;
    const char *end = skip_value(v, 0);
    char *out = malloc((size_t)(end - v)), *o = out; /* decoding never grows the text */
    if (!out) return NULL;
    for (const char *p = v + 1; *p != '"'; p++) {
        if (*p != '\\') { *o++ = *p; continue; }
        char e = *++p;
        if (e != 'u') { *o++ = e == 'b' ? '\b' : e == 'f' ? '\f' : e == 'n' ? '\n'
                              : e == 'r' ? '\r' : e == 't' ? '\t' : e; continue; }
        long c = hex4(p + 1);
        p += 4;
        if (c >= 0xD800 && c <= 0xDBFF && p[1] == '\\' && p[2] == 'u') {
            int low = hex4(p + 3); /* a surrogate pair is one code point */
            if (low >= 0xDC00 && low <= 0xDFFF) { c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00); p += 6; }
        }
        if (c >= 0xD800 && c <= 0xDFFF) c = 0xFFFD; /* a lone surrogate: the replacement character */
        if (c < 0x80) { *o++ = (char)c; }
        else if (c < 0x800) { *o++ = (char)(0xC0 | c >> 6); *o++ = (char)(0x80 | (c & 0x3F)); }
        else if (c < 0x10000) { *o++ = (char)(0xE0 | c >> 12); *o++ = (char)(0x80 | (c >> 6 & 0x3F)); *o++ = (char)(0x80 | (c & 0x3F)); }
        else { *o++ = (char)(0xF0 | c >> 18); *o++ = (char)(0x80 | (c >> 12 & 0x3F)); *o++ = (char)(0x80 | (c >> 6 & 0x3F)); *o++ = (char)(0x80 | (c & 0x3F)); }
    }
    *o = '\0';
    if (len) *len = (size_t)(o - out);
    return out;
}

/* The value of `key` in the object at obj, or NULL. */
const char *json_get(const char *obj, const char *key) {
    if (!obj || *(obj = skip_ws(obj)) != '{') return NULL;
    const char *p = skip_ws(obj + 1);
    while (*p == '"') {
        size_t len;
        char *name = json_string(p, &len);
        int found = name && len == strlen(key) && memcmp(name, key, len) == 0;
        free(name);
        p = skip_ws(skip_ws(skip_value(p, 0)) + 1); /* past the key and ':' */
        if (found) return p;
        p = skip_ws(skip_value(p, 0));
        if (*p == ',') p = skip_ws(p + 1);
    }
    return NULL;
}

/* Element i of the array at arr, or NULL (past its end, or not an array). */
const char *json_at(const char *arr, size_t i) {
    if (!arr || *(arr = skip_ws(arr)) != '[') return NULL;
    const char *p = skip_ws(arr + 1);
    if (*p == ']') return NULL;
    for (size_t k = 0; k < i; k++) {
        p = skip_ws(skip_value(p, 0));
        if (*p != ',') return NULL;
        p = skip_ws(p + 1);
    }
    return p;
}

size_t json_length(const char *arr) {
    size_t n = 0;
    while (json_at(arr, n)) n++;
    return n;
}

/* The integer at v (no fraction, no exponent, fits int64) into *out; 0 if not one. */
int json_int(const char *v, int64_t *out) {
    if (!v) return 0;
    v = skip_ws(v);
    const char *end = skip_value(v, 0);
    if (!end || (*v != '-' && (*v < '0' || *v > '9'))) return 0;
    for (const char *p = v; p < end; p++) if (*p == '.' || *p == 'e' || *p == 'E') return 0;
    char *stop;
    errno = 0;
    long long n = strtoll(v, &stop, 10);
    if (stop != end || errno == ERANGE) return 0;
    *out = (int64_t)n;
    return 1;
}

/* Any number at v as a double (exponents included); `otherwise` if v is not a number. */
double json_number(const char *v, double otherwise) {
    if (!v || ((*(v = skip_ws(v)) < '0' || *v > '9') && *v != '-')) return otherwise;
    return strtod(v, NULL);
}

/* ---------------------------------------------------------------- randomness
 * splitmix64 (Steele, Lea, Flood 2014): small and well known. Seeded from
 * bot_seed at each new game, so the same seed gives the same choices. */
static uint64_t rng_state;

static uint64_t rng_next(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A number in [0, n), n > 0. */
static size_t rng_below(size_t n) { return (size_t)(rng_next() % n); }

/* ---------------------------------------------------------------- your bot */
static int64_t my_seat = -1; /* this game's seat (0-based), from new_game */
static char *my_game;        /* the game description (JSON): rules, options, seats */
static int64_t time_left_ms; /* how long this decision may take */
/* A note for you, sent with this decision's answer (emptied before each): UTF-8,
 * of which the referee keeps 256 bytes. */
static char note[1024];

/* ===== choose(observation) -> action: the one place to edit =====
 * `observation` is a JSON object (docs/observation.md): casinos, the roll,
 * money, "decision" ("place", "kick", ...) and "legal_actions", the strings
 * you may answer (grammar in docs/actions.md). Return one of them, verbatim,
 * malloc'ed (the caller frees it). Read fields with json_get, json_at,
 * json_length, json_string, json_int and json_number, e.g.
 *     json_int(json_get(observation, "round"), &round);
 * Answer within time_left_ms (the referee's clock includes the pipe: keep a
 * margin), or the seat forfeits the game. This one plays at random. */
static char *choose(const char *observation, size_t *len) {
    const char *legal = json_get(observation, "legal_actions");
    size_t n = json_length(legal); /* always at least 2: a forced action is never asked */
    snprintf(note, sizeof note, "%zu legal actions", n); /* shown in the replay */
    return json_string(json_at(legal, rng_below(n ? n : 1)), len);
}

/* ---------------------------------------------------------------- protocol */
static FILE *out; /* the protocol's stdout; fd 1 itself goes to stderr */

/* s as a JSON string: quotes, backslashes and control characters escaped. */
static void write_json_string(const char *s, size_t len) {
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c < 0x20) fprintf(out, "\\u%04x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

int main(void) {
    int fd = dup(1); /* keep the real stdout for protocol lines ... */
    out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out || dup2(2, 1) < 0) { perror("stdout"); return 1; } /* ... and log the rest */
    setvbuf(stdout, NULL, _IOLBF, 0); /* each printf line logged at once, with its decision */

    char *line = NULL;
    size_t capacity = 0;
    while (getline(&line, &capacity, stdin) >= 0) {
        if (!json_valid(line)) { fprintf(stderr, "ignored, not a JSON object: %.200s\n", line); continue; }
        char *type = json_string(json_get(line, "type"), NULL);
        if (!type) { continue; }
        if (strcmp(type, "hello") == 0) {
            fprintf(out, "{\"type\":\"ready\",\"protocol\":1,\"name\":");
            write_json_string(BOT_NAME, strlen(BOT_NAME));
            fprintf(out, "}\n");
            fflush(out);
        } else if (strcmp(type, "new_game") == 0) {
            int64_t seed = 0;
            json_int(json_get(line, "seat"), &my_seat);
            json_int(json_get(line, "bot_seed"), &seed);
            rng_state = (uint64_t)seed;
            free(my_game); /* a copy: the line buffer is reused */
            const char *g = json_get(line, "game");
            my_game = g ? strndup(g, (size_t)(skip_value(g, 0) - g)) : NULL;
        } else if (strcmp(type, "request") == 0) {
            int64_t id = 0;
            json_int(json_get(line, "id"), &id);
            json_int(json_get(line, "time_left_ms"), &time_left_ms);
            size_t len = 0;
            note[0] = '\0';
            char *action = choose(json_get(line, "observation"), &len);
            fprintf(out, "{\"type\":\"action\",\"id\":%lld,\"action\":", (long long)id);
            write_json_string(action ? action : "", len);
            if (note[0]) {
                fprintf(out, ",\"note\":");
                write_json_string(note, strlen(note));
            }
            fprintf(out, "}\n");
            fflush(out); /* a reply left in the buffer is a timeout */
            free(action);
        } else if (strcmp(type, "shutdown") == 0) {
            free(type);
            break;
        } /* game_over and unknown types: nothing to answer */
        free(type);
    }
    free(line);
    free(my_game);
    return 0;
}
