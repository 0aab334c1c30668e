// A Las Vegas Arena bot in Go: the whole protocol in one file (docs/protocol.md).
//
// The referee writes one JSON object per line on stdin; this program answers
// "hello" with "ready" and every "request" with one "action" line on stdout.
// stdout is for protocol lines only: os.Stdout is pointed at stderr, the
// bot's log, so fmt.Println is safe (see main). What you log while deciding
// is kept with that decision, and Note (256 bytes) goes with your answer: the
// replay shows both at each of your decisions, to you alone.
//
// Edit choose below; the rest is plumbing you can keep as it is.
// Build: go build -o bot main.go      Run: ./bot
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

const botName = "starter-go"

// Observation is what a request carries (docs/observation.md). The common
// fields are typed; Fields holds every field, as encoding/json decodes them
// (objects map[string]any, arrays []any, numbers float64).
type Observation struct {
	Rules        string         `json:"rules"`
	Seat         int            `json:"seat"`
	Seats        int            `json:"seats"`
	Round        int            `json:"round"`
	Decision     string         `json:"decision"` // "place", "kick", "chip", "select", ...
	LegalActions []string       `json:"legal_actions"`
	Fields       map[string]any `json:"-"`
}

// Game is the game description from new_game: rules, options, seats.
type Game struct {
	Rules   string         `json:"rules"`
	Options map[string]any `json:"options"`
	Seats   int            `json:"seats"`
}

// ------------------------------------------------------------------ your bot

// Bot holds what the referee told about the current game.
type Bot struct {
	Seat       int    // this game's seat (0-based), from new_game
	Game       Game   // the game description
	TimeLeftMs int64  // how long this decision may take
	Note       string // a note for you, sent with this decision's answer
	rng        splitMix64
}

// ===== choose(observation) -> action: the one place to edit =====
// observation (docs/observation.md): casinos, the roll, money, Decision
// and LegalActions, the strings you may answer (grammar in docs/actions.md).
// Return one of them, verbatim. Answer within TimeLeftMs (the referee's clock
// includes the pipe: keep a margin), or the seat forfeits the game. This one
// plays at random.
func (b *Bot) choose(observation *Observation) string {
	legal := observation.LegalActions // always at least 2: a forced action is never asked
	if len(legal) == 0 {
		return ""
	}
	b.Note = fmt.Sprintf("%d legal actions", len(legal)) // shown in the replay
	return legal[b.rng.below(uint64(len(legal)))]
}

// ------------------------------------------------------------------ protocol

// message is any message of the referee: each type fills the fields it has,
// and fields this bot does not know are ignored.
type message struct {
	Type        string          `json:"type"`
	ID          int64           `json:"id"`
	Seat        int             `json:"seat"`
	BotSeed     uint64          `json:"bot_seed"`
	Game        Game            `json:"game"`
	TimeLeftMs  int64           `json:"time_left_ms"`
	Observation json.RawMessage `json:"observation"`
}

func main() {
	out := bufio.NewWriter(os.Stdout) // keep the real stdout for protocol lines ...
	os.Stdout = os.Stderr             // ... and log the rest
	send := func(reply any) {
		line, err := json.Marshal(reply) // escapes the strings properly
		if err == nil {
			_, err = out.Write(append(line, '\n'))
		}
		if err == nil {
			err = out.Flush() // a reply left in the buffer is a timeout
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "stdout:", err)
			os.Exit(1)
		}
	}

	var bot Bot
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if err == io.EOF && len(line) == 0 {
			return // end of input: as shutdown
		} else if err != nil && err != io.EOF {
			fmt.Fprintln(os.Stderr, "stdin:", err)
			return
		}
		var msg message
		if err := json.Unmarshal(line, &msg); err != nil {
			fmt.Fprintf(os.Stderr, "ignored a line (%v): %.200s\n", err, line)
			continue
		}
		switch msg.Type {
		case "hello":
			send(map[string]any{"type": "ready", "protocol": 1, "name": botName})
		case "new_game":
			bot.Seat, bot.Game = msg.Seat, msg.Game
			bot.rng = splitMix64(msg.BotSeed)
		case "request":
			var observation Observation
			for _, into := range []any{&observation.Fields, &observation} {
				if err := json.Unmarshal(msg.Observation, into); err != nil {
					fmt.Fprintln(os.Stderr, "observation:", err) // a field of another type
				}
			}
			bot.TimeLeftMs = msg.TimeLeftMs
			bot.Note = ""
			action := bot.choose(&observation)
			reply := map[string]any{"type": "action", "id": msg.ID, "action": action}
			if bot.Note != "" {
				reply["note"] = bot.Note
			}
			send(reply)
		case "shutdown":
			return
		} // game_over and unknown types: nothing to answer
	}
}

// ---------------------------------------------------------------- randomness

// splitMix64 (Steele, Lea, Flood 2014): small and well known. Seeded from
// bot_seed at each new game, so the same seed gives the same choices.
type splitMix64 uint64

func (s *splitMix64) next() uint64 {
	*s += 0x9E3779B97F4A7C15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// below is a number in [0, n), n > 0.
func (s *splitMix64) below(n uint64) uint64 { return s.next() % n }
