package dev.svc.engines;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * How to start an engine as a local process instead of a container ({@code svc run --native}):
 * its server binary and the arguments after it, in which svc fills in {@value #MODEL},
 * {@value #MODEL_NAME} and {@value #PORT}.
 *
 * @param binary the executable: a bare name is looked up on {@code PATH}, anything with a
 *     {@code /} is a path ({@code ~/} is the user's home)
 * @param args the arguments; they must pass the port ({@value #PORT}) so that svc can reach it
 */
public record NativeCommand(String binary, List<String> args) {

  /** The model's path on this host. */
  public static final String MODEL = "{model}";
  /** The name requests use for the model. */
  public static final String MODEL_NAME = "{model_name}";
  /** The free port on 127.0.0.1 svc chose for the engine. */
  public static final String PORT = "{port}";

  private static final List<String> PLACEHOLDERS = List.of(MODEL, MODEL_NAME, PORT);
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{[a-z_]+}");

  public NativeCommand {
    if (binary == null || binary.isBlank()) {
      throw new IllegalArgumentException("A native command needs a binary.");
    }
    if (PLACEHOLDER.matcher(binary).find()) {
      throw new IllegalArgumentException("The native binary '" + binary + "' may not contain a placeholder.");
    }
    args = List.copyOf(Objects.requireNonNull(args, "args"));
    for (String arg : args) {
      Matcher found = PLACEHOLDER.matcher(arg);
      while (found.find()) {
        if (!PLACEHOLDERS.contains(found.group())) {
          throw new IllegalArgumentException("The native argument '" + arg + "' has the unknown placeholder "
              + found.group() + " (known: " + String.join(", ", PLACEHOLDERS) + ").");
        }
      }
    }
    if (args.stream().noneMatch(arg -> arg.contains(PORT))) {
      throw new IllegalArgumentException(
          "The native arguments must pass the port svc chooses: none of them contains " + PORT + ".");
    }
  }

  /**
   * The command as engines.yaml writes it, placeholders unfilled: the binary, then the arguments,
   * space-separated; a word that is empty or holds a space or a quote is single-quoted.
   */
  public String template() {
    return Stream.concat(Stream.of(binary), args.stream()).map(NativeCommand::quoted).collect(Collectors.joining(" "));
  }

  private static String quoted(String word) {
    if (!word.isEmpty() && word.chars().noneMatch(c -> Character.isWhitespace(c) || c == '\'' || c == '"')) {
      return word;
    }
    return "'" + word.replace("'", "'\\''") + "'";
  }

  /** The arguments with the placeholders filled in. */
  public List<String> expand(String model, String modelName, int port) {
    Map<String, String> values = Map.of(MODEL, model, MODEL_NAME, modelName, PORT, Integer.toString(port));
    return args.stream()
        .map(arg -> PLACEHOLDER.matcher(arg).replaceAll(found -> Matcher.quoteReplacement(values.get(found.group()))))
        .toList();
  }
}
