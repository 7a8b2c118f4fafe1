package dev.svc.core;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Reads a YAML file a user wrote (engines.yaml, a suite, the agent's configuration) into plain maps,
 * lists and scalars, strictly: duplicate keys and aliases of mappings or lists are refused, and
 * whatever SnakeYAML throws on a malformed document comes out as one checked {@link Invalid} with
 * a problem in words, never a library exception.
 */
public final class UserYaml {

  private UserYaml() {}

  /** The document was refused; {@link #getMessage()} says why, to end a sentence about the file. */
  public static final class Invalid extends Exception {
    Invalid(String problem, Throwable cause) {
      super(problem, cause, false, false);
    }
  }

  /** The document's root value: null for an empty document. */
  public static Object load(String text) throws Invalid {
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(false);
    // An alias of a mapping or list can build a cycle (whose printing overflows the stack) or a
    // billion-laughs bomb; no svc file needs one, so aliases of collections are refused.
    options.setMaxAliasesForCollections(0);
    try {
      return new Yaml(new SafeConstructor(options)).load(text);
    } catch (YAMLException e) {
      throw new Invalid("it is not well-formed YAML (" + problem(e) + ")", e);
    } catch (NumberFormatException e) {
      // a YAML 1.1 base-60 integer (1:20) is built from int parts, and !!int 0b from no digits
      throw new Invalid("a number in it is out of range or has no digits", e);
    } catch (IllegalArgumentException e) {
      // !!binary with text that is not base64
      throw new Invalid("a value in it cannot be decoded (" + e.getMessage() + ")", e);
    } catch (RuntimeException e) {
      // only SnakeYAML runs here: an explicit tag on the wrong kind of node (!!set on a list) throws
      // a ClassCastException from inside the library
      throw new Invalid("a value in it does not fit its YAML tag", e);
    }
  }

  private static String problem(YAMLException e) {
    if (e instanceof MarkedYAMLException marked && marked.getProblemMark() != null) {
      Mark mark = marked.getProblemMark();
      return marked.getProblem() + " at line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1);
    }
    return e.getMessage() == null ? "no detail" : e.getMessage().replaceAll("\\s+", " ").trim();
  }
}
