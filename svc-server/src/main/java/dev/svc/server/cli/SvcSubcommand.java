package dev.svc.server.cli;

/**
 * A subcommand of {@code svc} that another module adds (svc-perf's {@code svc fleet}), so that the
 * server's jar does not carry it: a picocli {@code @Command} class, listed in
 * {@code META-INF/services/dev.svc.server.cli.SvcSubcommand} and found when its jar is on the class path.
 */
public interface SvcSubcommand {
}
