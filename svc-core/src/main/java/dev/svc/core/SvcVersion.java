package dev.svc.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The package version, filtered into the jar by Maven at build time. */
public final class SvcVersion {

  public static final String NAME = "svc";
  public static final String API_VERSION = "v1";

  private static final String VERSION = load();

  private SvcVersion() {
  }

  public static String version() {
    return VERSION;
  }

  private static String load() {
    try (InputStream in = SvcVersion.class.getResourceAsStream("/svc-version.properties")) {
      if (in == null) {
        throw new IllegalStateException("svc-version.properties is missing from the classpath");
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
