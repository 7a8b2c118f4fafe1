package dev.svc.server.campaigns;

import java.util.ArrayList;
import java.util.List;

/**
 * Expands a campaign's config into its rows: models × engines × benchmarks, in that nested order.
 * An engine's own {@code suite} overrides the campaign's {@code suite_name}.
 */
final class CampaignMatrix {

  private CampaignMatrix() {
  }

  static List<CampaignRow> rows(CampaignConfig config) {
    List<CampaignRow> rows = new ArrayList<>();
    for (CampaignConfig.Model model : config.models()) {
      for (CampaignConfig.Engine engine : config.engines()) {
        String suite = engine.suite() == null ? config.suiteName() : engine.suite();
        for (String benchmark : config.benchmarks()) {
          rows.add(new CampaignRow(rows.size(), model.name(), model.path(), engine.name(), benchmark, suite,
              config.force()));
        }
      }
    }
    return rows;
  }
}
