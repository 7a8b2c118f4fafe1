package dev.svc.agent.engine;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.WaitContainerResultCallback;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Frame;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** {@code svc run} in the svc benchmark container, its output streamed from Docker's log. */
final class ContainerBenchmark implements RunningBenchmark {

  private final DockerClient docker;
  private final String id;
  private final String commandId;
  private final ResultCallback.Adapter<Frame> logs;

  private ContainerBenchmark(DockerClient docker, String id, String commandId, ResultCallback.Adapter<Frame> logs) {
    this.docker = docker;
    this.id = id;
    this.commandId = commandId;
    this.logs = logs;
  }

  static ContainerBenchmark start(DockerClient docker, BenchmarkContainerPlan plan, String commandId, Consumer<String> lines) {
    String id = docker.createContainerCmd(plan.image())
        .withName(plan.name())
        .withEntrypoint(plan.entrypoint())
        .withCmd(plan.cmd())
        .withEnv(plan.env())
        .withLabels(plan.labels())
        .withHostConfig(plan.hostConfig())
        .exec().getId();
    docker.startContainerCmd(id).exec();
    return new ContainerBenchmark(docker, id, commandId, followLines(docker, id, lines));
  }

  @Override
  public int awaitExit() throws InterruptedException {
    int exit;
    try {
      exit = docker.waitContainerCmd(id).exec(new WaitContainerResultCallback()).awaitStatusCode();
    } catch (NotFoundException e) {
      return 137; // removed: it was stopped
    } catch (RuntimeException e) {
      // removed while waiting (stopped): Docker answers the wait with an error
      return 137;
    }
    logs.awaitCompletion(10, TimeUnit.SECONDS);
    try {
      docker.removeContainerCmd(id).withForce(true).exec();
    } catch (NotFoundException e) {
      // already removed
    }
    return exit;
  }

  @Override
  public void stop(Consumer<String> log) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
    try {
      // first the benchmark container, so that it starts nothing more; then whatever it started
      docker.removeContainerCmd(id).withForce(true).exec();
      log.accept("Removed the benchmark container " + id.substring(0, Math.min(12, id.length())));
    } catch (NotFoundException e) {
      // already gone
    } catch (RuntimeException e) {
      log.accept("Could not remove the benchmark container: " + e.getMessage());
    }
    RunContainers.sweep(docker, commandId, deadline, log);
  }

  @Override
  public long pid() {
    return -1;
  }

  /** Docker's log frames split lines anywhere: whole lines only go on. */
  /** Follows a container's stdout and stderr as whole lines, until the container ends. */
  static ResultCallback.Adapter<Frame> followLines(DockerClient docker, String containerId, Consumer<String> lines) {
    LineAssembler assembler = new LineAssembler(lines);
    return docker.logContainerCmd(containerId).withFollowStream(true).withStdOut(true)
        .withStdErr(true).exec(new ResultCallback.Adapter<>() {
          @Override
          public void onNext(Frame frame) {
            assembler.add(new String(frame.getPayload(), StandardCharsets.UTF_8));
          }

          @Override
          public void onComplete() {
            assembler.flush();
            super.onComplete();
          }
        });
  }

  static final class LineAssembler {
    private final Consumer<String> lines;
    private final StringBuilder pending = new StringBuilder();

    LineAssembler(Consumer<String> lines) {
      this.lines = lines;
    }

    synchronized void add(String text) {
      pending.append(text);
      int newline;
      while ((newline = pending.indexOf("\n")) >= 0) {
        String line = pending.substring(0, newline);
        pending.delete(0, newline + 1);
        lines.accept(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line);
      }
    }

    synchronized void flush() {
      if (pending.length() > 0) {
        lines.accept(pending.toString());
        pending.setLength(0);
      }
    }
  }
}
