package dev.svc.engines;

import dev.svc.core.CpuArch;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The one set of rules, shared by server and agent, that decides whether an engine may run a
 * model on a machine: the platform first (is there an image for the architecture?), then the
 * model format. {@code force} bypasses both.
 */
public final class Compatibility {

  private Compatibility() {}

  /**
   * Checks platform, then format; with {@code force} an incompatible verdict comes back
   * compatible and {@link Verdict#forced() forced}.
   *
   * @param arch the machine's architecture, or null when unknown (the platform check passes)
   * @param modelPath the model as the user gave it: a file, a directory path or a Hugging Face id
   */
  public static Verdict check(EngineSpec engine, CpuArch arch, String modelPath, boolean force) {
    return check(engine, arch, ModelFormats.detect(modelPath), force);
  }

  /**
   * As {@link #check(EngineSpec, CpuArch, String, boolean)}, telling the format from what lies
   * at the path; for the agent, which has the model's files.
   */
  public static Verdict checkOnDisk(EngineSpec engine, CpuArch arch, Path modelPath, boolean force) {
    return check(engine, arch, ModelFormats.detect(modelPath), force);
  }

  /** Whether the engine has an image for the architecture; a null (unreported) one passes. */
  public static Verdict checkPlatform(EngineSpec engine, CpuArch arch) {
    Optional<String> reason = engine.incompatibleReason(arch);
    if (reason.isEmpty()) {
      return Verdict.ok();
    }
    return Verdict.incompatible(
        Verdict.Kind.PLATFORM,
        engine.name() + " is not available on " + arch.displayName() + ": " + reason.get());
  }

  /**
   * Whether the engine loads the model's format as told by the path text. A path whose format
   * cannot be told (a Hugging Face id, a directory path) passes: the agent, which has the files,
   * checks again on disk with {@link #checkFormatOnDisk}.
   */
  public static Verdict checkFormat(EngineSpec engine, String modelPath) {
    return checkFormat(engine, ModelFormats.detect(modelPath));
  }

  /**
   * Whether the engine loads the model's format as told by what lies at the path; a path whose
   * format cannot be told passes, as for {@link #checkFormat(EngineSpec, String)}.
   */
  public static Verdict checkFormatOnDisk(EngineSpec engine, Path modelPath) {
    return checkFormat(engine, ModelFormats.detect(modelPath));
  }

  /**
   * Whether the engine loads a model of a known format, such as one the model catalog lists; the
   * dashboard shows these verdicts before the path is known to the agent.
   */
  public static Verdict checkFormat(EngineSpec engine, ModelFormat format) {
    return checkFormat(engine, Optional.of(format));
  }

  private static Verdict check(
      EngineSpec engine, CpuArch arch, Optional<ModelFormat> format, boolean force) {
    Verdict verdict = checkPlatform(engine, arch);
    if (verdict.compatible()) {
      verdict = checkFormat(engine, format);
    }
    return force ? verdict.bypassed() : verdict;
  }

  private static Verdict checkFormat(EngineSpec engine, Optional<ModelFormat> format) {
    if (format.isEmpty() || engine.supportsFormat(format.get())) {
      return Verdict.ok();
    }
    return Verdict.incompatible(
        Verdict.Kind.FORMAT,
        "Model format " + format.get().wireName() + " is not supported by " + engine.name() + "; "
            + engine.name() + " supports: " + String.join(", ", engine.formatNames()));
  }
}
