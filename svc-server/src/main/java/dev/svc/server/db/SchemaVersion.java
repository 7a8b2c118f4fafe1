package dev.svc.server.db;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.Yaml;

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

  @SuppressWarnings("unchecked")
  private static List<String> readChangeSetIds() {
    try (InputStream in = SchemaVersion.class.getClassLoader().getResourceAsStream(CHANGELOG)) {
      if (in == null) {
        throw new IllegalStateException(CHANGELOG + " is missing from the classpath");
      }
      Map<String, Object> root = new Yaml().load(in);
      List<String> ids = new ArrayList<>();
      for (Object entry : (List<Object>) root.get("databaseChangeLog")) {
        Map<String, Object> changeSet = (Map<String, Object>) ((Map<String, Object>) entry).get("changeSet");
        if (changeSet != null) {
          ids.add(String.valueOf(changeSet.get("id")));
        }
      }
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
}
