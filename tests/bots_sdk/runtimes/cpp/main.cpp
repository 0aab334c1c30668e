// A tiny protocol bot: answers every request with its first legal action.
#include <iostream>
#include <string>

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.find("\"type\":\"hello\"") != std::string::npos) {
            std::cout << "{\"type\":\"ready\",\"protocol\":1,\"name\":\"tiny c++\"}" << std::endl;
        } else if (line.find("\"type\":\"request\"") != std::string::npos) {
            long id = std::stol(line.substr(line.find("\"id\":") + 5));
            auto start = line.find("\"legal_actions\":[\"") + 18;
            auto action = line.substr(start, line.find('"', start) - start);
            std::cout << "{\"type\":\"action\",\"id\":" << id << ",\"action\":\"" << action
                      << "\"}" << std::endl;
        } else if (line.find("\"type\":\"shutdown\"") != std::string::npos) {
            return 0;
        }
    }
}
