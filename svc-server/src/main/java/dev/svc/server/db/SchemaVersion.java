package dev.svc.server.db;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The schema version, derived from the changelog itself so that it cannot fall behind a new
 * changeset: changesets are named v1..vN in order and the version is N.
 */
public final class SchemaVersion {

  public static final String CHANGELOG = "db/changelog.yaml";

  private static final List<String> IDS = readChangeSetIds();

  private static final String FINGERPRINT = readFingerprint();

  private SchemaVersion() {
  }

  public static int current() {
    return IDS.size();
  }

  public static List<String> changeSetIds() {
    return IDS;
  }

  /**
   * The SHA-256 of the changelog's bytes (hex): any change to it, a new changeset or an edited one,
   * gives another fingerprint, so the database it was applied to is migrated again (Migrations).
   */
  public static String fingerprint() {
    return FINGERPRINT;
  }

  /** The version number a changeset id stands for, or -1 when it is not of the form vN. */
  public static int numberOf(String changeSetId) {
    if (changeSetId == null || !changeSetId.matches("v[1-9]\\d*")) {
      return -1;
    }
    return Integer.parseInt(changeSetId.substring(1));
  }

  private static String readFingerprint() {
    try (InputStream in = SchemaVersion.class.getClassLoader().getResourceAsStream(CHANGELOG)) {
      if (in == null) {
        throw new IllegalStateException(CHANGELOG + " is missing from the classpath");
      }
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(in.readAllBytes()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /**
   * The changesets' ids in order, read line by line: each {@code - changeSet:} line is followed by
   * its {@code id:} line, as every changeset in the changelog is written. A YAML parser would read
   * the same (a test compares the two), but took a tenth of a second of every server start.
   */
  private static List<String> readChangeSetIds() {
    try (InputStream in = SchemaVersion.class.getClassLoader().getResourceAsStream(CHANGELOG)) {
      if (in == null) {
        throw new IllegalStateException(CHANGELOG + " is missing from the classpath");
      }
      List<String> ids = changeSetIds(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      for (int i = 0; i < ids.size(); i++) {
        if (numberOf(ids.get(i)) != i + 1) {
          throw new IllegalStateException("Changeset " + (i + 1) + " of " + CHANGELOG + " has id '" + ids.get(i)
              + "'; changesets must be named v1, v2, ... in order");
        }
      }
      return List.copyOf(ids);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The ids of the changesets in a changelog written as ours is: {@code id:} first in each changeset. */
  static List<String> changeSetIds(String changelog) {
    List<String> ids = new ArrayList<>();
    String[] lines = changelog.split("\\R");
    for (int i = 0; i < lines.length; i++) {
      if (!lines[i].strip().equals("- changeSet:")) {
        continue;
      }
      String next = i + 1 < lines.length ? lines[i + 1].strip() : "";
      if (!next.startsWith("id:")) {
        throw new IllegalStateException("Line " + (i + 2) + " of " + CHANGELOG
            + ": a changeset's first line must be its id (id: vN), not '" + next + "'");
      }
      ids.add(unquoted(next.substring(3).strip()));
    }
    return ids;
  }

  private static String unquoted(String value) {
    boolean quoted = value.length() >= 2 && (value.startsWith("\"") && value.endsWith("\"")
        || value.startsWith("'") && value.endsWith("'"));
    return quoted ? value.substring(1, value.length() - 1) : value;
  }
}
