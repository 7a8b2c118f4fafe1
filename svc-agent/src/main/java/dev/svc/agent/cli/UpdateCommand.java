package dev.svc.agent.cli;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.ops.OpsOptions;
import dev.svc.agent.ops.PackageInstall;
import dev.svc.agent.ops.VerifiedDownload;
import dev.svc.agent.uplink.ServerConnection;
import dev.svc.core.home.SvcHome;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code svc-agent update}. */
@Command(name = "update", mixinStandardHelpOptions = true, description = {
    "Install the latest agent package from the server: download it, verify its SHA-256 against both digests the "
        + "server announces, unpack and check it under <install-dir>/versions/, then switch <install-dir>/current "
        + "to it atomically. On any failure the installed agent stays as it was."})
public final class UpdateCommand implements Callable<Integer> {

  @Mixin
  HomeOptions homeOptions = new HomeOptions();

  @Option(names = "--server", paramLabel = "URL", description = "The server (default: the one in the configuration).")
  String server;

  @Option(names = "--install-dir", paramLabel = "DIR",
      description = "Where the agent is installed (default: <home>/agent, i.e. ~/.svc/agent); run it as "
          + "<install-dir>/current/bin/svc-agent.")
  String installDir;

  @Option(names = "--restart", description = "Stop the running agent and start the new one (svc-agent stop, then start).")
  boolean restart;

  @Override
  public Integer call() {
    AgentHome agentHome = homeOptions.home();
    Path configFile = homeOptions.configFile();
    AgentConfig connection;
    try {
      connection = OpsOptions.connection(configFile, server);
    } catch (RuntimeException e) {
      System.err.println("svc-agent update: " + e.getMessage());
      return server != null && !(server.startsWith("http://") || server.startsWith("https://")) ? 2 : 1;
    }
    PackageInstall install = new PackageInstall(
        installDir == null ? agentHome.root().resolve("agent") : SvcHome.expand(installDir));
    Vertx vertx = Vertx.vertx();
    Path download = null;
    try {
      Files.createDirectories(install.installDir());
      // next to the install, so a full disk shows before anything is unpacked
      download = Files.createTempFile(install.installDir(), ".download-", ".tar.gz");
      ServerConnection serverConnection = ServerConnection.open(vertx, connection, false);
      System.out.println("Downloading the agent package from " + serverConnection.current() + "...");
      VerifiedDownload.Verified verified;
      try {
        verified = VerifiedDownload.fetch(vertx, serverConnection, "/api/v1/agent/package", "agent package", download);
      } finally {
        serverConnection.close();
      }
      System.out.println("Verified " + verified.filename() + " (" + verified.size() + " bytes, SHA-256 "
          + verified.sha256() + ")");
      PackageInstall.Installed installed = install.install(verified.file(), verified.sha256());
      if (installed.unchanged()) {
        System.out.println("Already installed: " + installed.version());
      } else {
        System.out.println("Installed " + installed.version() + " as " + install.current()
            + installed.previous().map(p -> " (was " + p.getFileName() + ")").orElse(""));
      }
    } catch (VerifiedDownload.DownloadException e) {
      System.err.println("svc-agent update: " + e.getMessage());
      return 1;
    } catch (Exception e) {
      System.err.println("svc-agent update: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
      return 1;
    } finally {
      vertx.close().await();
      if (download != null) {
        try {
          Files.deleteIfExists(download);
        } catch (IOException e) {
          // a leftover download is overwritten by name next time
        }
      }
    }
    return restart ? restart(install) : 0;
  }

  /** Stops the running daemon and starts the new version through its own launcher. */
  private int restart(PackageInstall install) {
    List<String> where = new ArrayList<>();
    if (homeOptions.home != null) {
      where.addAll(List.of("--home", homeOptions.home));
    }
    if (homeOptions.config != null) {
      where.addAll(List.of("--config", homeOptions.config));
    }
    String launcher = install.launcher().toString();
    System.out.println("Restarting the agent...");
    // a stop that finds no running agent is fine: start brings one up either way
    run(launcher, "stop", where);
    int started = run(launcher, "start", where);
    if (started != 0) {
      System.err.println("svc-agent update: the new version is installed but did not start (exit " + started + ")");
      return 1;
    }
    return 0;
  }

  private static int run(String launcher, String command, List<String> where) {
    List<String> args = new ArrayList<>(List.of(launcher, command));
    args.addAll(where);
    try {
      Process process = new ProcessBuilder(args).inheritIO().start();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        return 124;
      }
      return process.exitValue();
    } catch (IOException e) {
      System.err.println("svc-agent update: could not run " + launcher + ": " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 130;
    }
  }
}
