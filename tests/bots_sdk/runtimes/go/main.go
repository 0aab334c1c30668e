// A tiny protocol bot: answers every request with its first legal action.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<16), 1<<20)
	for in.Scan() {
		line := in.Text()
		switch {
		case strings.Contains(line, `"type":"hello"`):
			fmt.Println(`{"type":"ready","protocol":1,"name":"tiny go"}`)
		case strings.Contains(line, `"type":"request"`):
			rest := line[strings.Index(line, `"id":`)+5:]
			id := rest[:strings.IndexAny(rest, ",}")]
			rest = line[strings.Index(line, `"legal_actions":["`)+18:]
			action := rest[:strings.Index(rest, `"`)]
			fmt.Printf("{\"type\":\"action\",\"id\":%s,\"action\":\"%s\"}\n", id, action)
		case strings.Contains(line, `"type":"shutdown"`):
			return
		}
	}
}
