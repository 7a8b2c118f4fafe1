package dev.svc.engines.lifecycle;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectImageResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.PullResponseItem;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Engine images on the Docker host: whether one is present, and pulling one from its registry
 * with progress lines. Blocking; call from worker threads.
 */
public final class EngineImages {

  static final int PROGRESS_SECONDS = 2;
  private static final Duration PROGRESS_EVERY = Duration.ofSeconds(PROGRESS_SECONDS);

  private final DockerClient docker;

  public EngineImages(DockerClient docker) {
    this.docker = docker;
  }

  /** The local image's details, or empty when the host does not have it. */
  public Optional<InspectImageResponse> inspect(String image) {
    try {
      return Optional.of(docker.inspectImageCmd(image).exec());
    } catch (NotFoundException e) {
      return Optional.empty();
    }
  }

  /**
   * An image's digest: its first repo digest ({@code repo@sha256:…}, what a registry serves and
   * {@code docker pull} takes) when it came from a registry, else its local id ({@code sha256:…}).
   */
  public static String digest(InspectImageResponse image) {
    List<String> repoDigests = image.getRepoDigests();
    return repoDigests != null && !repoDigests.isEmpty() ? repoDigests.get(0) : image.getId();
  }

  public boolean isPresent(String image) {
    return inspect(image).isPresent();
  }

  /** The registry an image is pulled from ({@code docker.io} for names without a registry host). */
  public static String registryOf(String image) {
    return ImageRef.parse(image).registry();
  }

  /**
   * Checks for the image and pulls it when absent.
   *
   * @return true when it had to be pulled
   */
  public boolean ensure(String image, LogSink sink) {
    String tag = LifecycleStage.IMAGE.tag() + " ";
    Optional<InspectImageResponse> local = inspect(image);
    if (local.isPresent()) {
      sink.log(tag + "Image " + image + " is present locally (" + describe(local.get()) + ")");
      return false;
    }
    sink.log(tag + "Image " + image + " is not present locally; pulling it from " + registryOf(image));
    pull(image, sink);
    return true;
  }

  /**
   * Pulls the image, logging each layer's milestones and the overall download progress when the
   * download starts and then every {@value #PROGRESS_SECONDS} seconds.
   *
   * @throws IllegalStateException when the registry refuses or cannot be reached
   */
  public void pull(String image, LogSink sink) {
    ImageRef ref = ImageRef.parse(image);
    String tag = LifecycleStage.IMAGE.tag() + " ";
    PullProgress progress = new PullProgress(sink, tag);
    try {
      docker.pullImageCmd(ref.repository()).withTag(ref.tag()).exec(progress).awaitCompletion(60, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Pulling " + image + " was interrupted.", e);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "Pulling " + image + " from " + ref.registry() + " failed: " + DockerClients.rootMessage(e), e);
    }
    if (progress.failure() != null) {
      throw new IllegalStateException(
          "Pulling " + image + " from " + ref.registry() + " failed: " + DockerClients.rootMessage(progress.failure()),
          progress.failure());
    }
    if (progress.error != null) {
      throw new IllegalStateException("Pulling " + image + " from " + ref.registry() + " failed: " + progress.error);
    }
    InspectImageResponse pulled = inspect(image).orElseThrow(() ->
        new IllegalStateException("Pulling " + image + " finished but the image is not on the host."));
    sink.log(tag + "Pulled " + image + " (" + describe(pulled) + ")");
  }

  private static String describe(InspectImageResponse image) {
    String id = image.getId() == null ? "?" : image.getId().replaceFirst("^sha256:", "");
    String shortId = id.length() > 12 ? id.substring(0, 12) : id;
    long size = image.getSize() == null ? 0 : image.getSize();
    return "id " + shortId + ", " + megabytes(size) + ", " + image.getArch();
  }

  static String megabytes(long bytes) {
    return String.format(java.util.Locale.ROOT, "%.1f MB", bytes / 1_000_000.0);
  }

  /** Turns the pull's event stream into a few readable lines. */
  private static final class PullProgress extends QuietCallback<PullResponseItem> {
    private final LogSink sink;
    private final String tag;
    private final Map<String, String> layerStatus = new HashMap<>();
    private final Map<String, long[]> layerBytes = new HashMap<>();
    private long lastProgressAt;
    private boolean progressShown;
    volatile String error;

    PullProgress(LogSink sink, String tag) {
      this.sink = sink;
      this.tag = tag;
    }

    @Override
    public void onNext(PullResponseItem item) {
      if (item.getErrorDetail() != null || item.getError() != null) {
        error = item.getErrorDetail() != null && item.getErrorDetail().getMessage() != null
            ? item.getErrorDetail().getMessage()
            : item.getError();
        return;
      }
      String status = item.getStatus();
      if (status == null) {
        return;
      }
      String id = item.getId();
      if (id == null || (!status.startsWith("Downloading") && !status.startsWith("Extracting"))) {
        // milestones: "Pulling fs layer", "Download complete", "Pull complete", "Digest: …", "Status: …"
        if (id == null || !status.equals(layerStatus.put(id, status))) {
          sink.log(tag + (id == null ? status : id + ": " + status));
        }
        return;
      }
      if (item.getProgressDetail() != null && status.startsWith("Downloading")) {
        Long current = item.getProgressDetail().getCurrent();
        Long total = item.getProgressDetail().getTotal();
        layerBytes.put(id, new long[] {current == null ? 0 : current, total == null ? 0 : total});
      }
      long now = System.nanoTime();
      // the first download event, then one line every PROGRESS_SECONDS
      if (!progressShown || now - lastProgressAt >= PROGRESS_EVERY.toNanos()) {
        progressShown = true;
        lastProgressAt = now;
        long done = layerBytes.values().stream().mapToLong(b -> b[0]).sum();
        long total = layerBytes.values().stream().mapToLong(b -> b[1]).sum();
        sink.log(tag + "Downloading: " + megabytes(done) + " of " + megabytes(total)
            + (total > 0 ? " (" + (100 * done / total) + "%)" : "") + " across " + layerBytes.size() + " layer(s)");
      }
    }
  }
}
