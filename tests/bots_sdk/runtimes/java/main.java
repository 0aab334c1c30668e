// A tiny protocol bot: answers every request with its first legal action.
import java.io.BufferedReader;
import java.io.InputStreamReader;

// Not public: a public class must live in a file of its name, and the file is main.java.
class Main {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.contains("\"type\":\"hello\"")) {
                System.out.println("{\"type\":\"ready\",\"protocol\":1,\"name\":\"tiny java\"}");
            } else if (line.contains("\"type\":\"request\"")) {
                int at = line.indexOf("\"id\":") + 5;
                int end = at;
                while (Character.isDigit(line.charAt(end))) end++;
                int start = line.indexOf("\"legal_actions\":[\"") + 18;
                String action = line.substring(start, line.indexOf('"', start));
                System.out.println("{\"type\":\"action\",\"id\":" + line.substring(at, end)
                        + ",\"action\":\"" + action + "\"}");
            } else if (line.contains("\"type\":\"shutdown\"")) {
                return;
            }
            System.out.flush();
        }
    }
}
