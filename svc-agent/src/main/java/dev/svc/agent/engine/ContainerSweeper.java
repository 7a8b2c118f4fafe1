package dev.svc.agent.engine;

import com.github.dockerjava.api.DockerClient;
import dev.svc.engines.lifecycle.DockerClients;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the containers labelled with an ended run ({@code svc run} removes its engine container
 * itself, unless Docker stopped answering). A run whose containers Docker could not remove is
 * marked unswept in the {@link CommandJournal} by the caller and handed to {@link #later}:
 * it is swept again every {@value #RETRY_MS} ms until Docker answers, and at the next start when
 * the agent stops first. Used on its verticle's context; {@link #sweep} is blocking.
 */
final class ContainerSweeper {

  static final long RETRY_MS = 5_000;

  private static final Logger LOG = LoggerFactory.getLogger(ContainerSweeper.class);

  private final Vertx vertx;
  private final CommandJournal journal;
  private final Supplier<DockerClient> docker;
  private final Set<String> unswept = new HashSet<>();
  private long timer = -1;
  private boolean sweeping;

  ContainerSweeper(Vertx vertx, CommandJournal journal, Supplier<DockerClient> docker) {
    this.vertx = vertx;
    this.journal = journal;
    this.docker = docker;
  }

  /** The run's containers removed (blocking); false when Docker could not be asked or some are left. */
  boolean sweep(String commandId, Consumer<String> log) {
    try {
      return RunContainers.sweep(docker.get(), commandId, System.nanoTime() + TimeUnit.SECONDS.toNanos(4), log);
    } catch (RuntimeException e) {
      log.accept("Could not remove this run's containers: " + DockerClients.rootMessage(e));
      return false;
    }
  }

  /** Sweeps the run again every {@value #RETRY_MS} ms until Docker answers; clears its journal mark then. */
  void later(String commandId) {
    unswept.add(commandId);
    if (timer < 0) {
      timer = vertx.setPeriodic(RETRY_MS, t -> retry());
    }
  }

  private void retry() {
    if (sweeping || unswept.isEmpty()) {
      return;
    }
    sweeping = true;
    List<String> pending = new ArrayList<>(unswept);
    vertx.executeBlocking(() -> {
      List<String> done = new ArrayList<>();
      for (String commandId : pending) {
        // while Docker is away every attempt fails the same way: quietly
        if (!sweep(commandId, line -> LOG.debug("{}", line))) {
          break;
        }
        LOG.info("Docker answers again: the containers of run {} are removed", commandId);
        journal.get(commandId).ifPresent(record -> journal.put(record.withUnswept(false)));
        done.add(commandId);
      }
      return done;
    }, false).onComplete(r -> {
      sweeping = false;
      if (r.succeeded()) {
        r.result().forEach(unswept::remove);
      }
      if (unswept.isEmpty() && timer >= 0) {
        vertx.cancelTimer(timer);
        timer = -1;
      }
    });
  }
}
