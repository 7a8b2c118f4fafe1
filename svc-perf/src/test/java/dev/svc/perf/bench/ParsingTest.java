package dev.svc.perf.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The benchmarks' readers of other programs' output: /proc status files and wrk's report. */
class ParsingTest {

  @Test
  void vmRssIsReadInKib() {
    String status = "Name:\tjava\nVmPeak:\t 9000000 kB\nVmRSS:\t  183456 kB\nRssAnon:\t 150000 kB\n";
    assertThat(Rss.parseVmRssKib(status)).hasValue(183_456);
    assertThat(Rss.parseVmRssKib("Name:\tkthreadd\nState:\tS\n")).isEmpty(); // kernel threads have none
    assertThat(Rss.kib(ProcessHandle.current().pid())).isPresent();
  }

  @Test
  void cpuSecondsAreUserPlusSystemTicks() {
    String stat = "4242 (java (svc) web) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 75 0 0 20 0 40 0 100 0 0";
    assertThat(ProcessCpu.parseSeconds(stat)).hasValue(3.25);
    assertThat(ProcessCpu.seconds(ProcessHandle.current().pid())).isPresent();
    assertThat(ProcessCpu.threadKind("C2 CompilerThre")).isEqualTo("JIT");
    assertThat(ProcessCpu.threadKind("vert.x-eventloo")).isEqualTo("event loops");
    assertThat(ProcessCpu.byThreadKind(ProcessHandle.current().pid())).containsKeys("JIT", "main", "other");
  }

  @Test
  void wrkReportGivesRateLatencyAndFailures() {
    String report = """
        Running 5s test @ http://127.0.0.1:8080/api/v1/health
          2 threads and 32 connections
          Thread Stats   Avg      Stdev     Max   +/- Stdev
            Latency     1.10ms    2.01ms  44.19ms   95.12%
            Req/Sec    10.29k     1.10k   12.34k    70.00%
          Latency Distribution
             50%  635.00us
             75%    1.01ms
             90%    2.00ms
             99%    1.20s
          102345 requests in 5.00s, 15.00MB read
          Socket errors: connect 0, read 3, write 0, timeout 0
          Non-2xx or 3xx responses: 12
        Requests/sec:  20469.00
        Transfer/sec:      3.00MB
        """;
    Wrk.Result result = Wrk.parse(report);
    assertThat(result.perSecond()).isEqualTo(20_469.0);
    assertThat(result.p50Ms()).isEqualTo(0.635, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(result.p99Ms()).isEqualTo(1200.0);
    assertThat(result.non2xx()).isEqualTo(12);
    assertThat(result.socketErrors()).isEqualTo("connect 0, read 3, write 0, timeout 0");
    assertThatThrownBy(() -> Wrk.parse("unable to connect")).isInstanceOf(IllegalArgumentException.class);
  }
}
