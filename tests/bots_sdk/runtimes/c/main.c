/* A tiny protocol bot: answers every request with its first legal action. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char line[1 << 20];

int main(void) {
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"type\":\"hello\"")) {
            puts("{\"type\":\"ready\",\"protocol\":1,\"name\":\"tiny c\"}");
        } else if (strstr(line, "\"type\":\"request\"")) {
            long id = strtol(strstr(line, "\"id\":") + 5, NULL, 10);
            char *action = strstr(line, "\"legal_actions\":[\"") + 18;
            *strchr(action, '"') = '\0';
            printf("{\"type\":\"action\",\"id\":%ld,\"action\":\"%s\"}\n", id, action);
        } else if (strstr(line, "\"type\":\"shutdown\"")) {
            return 0;
        }
        fflush(stdout);
    }
    return 0;
}
