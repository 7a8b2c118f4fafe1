package dev.svc.core.domain;

import dev.svc.core.WireNames;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/** States of a campaign: draft → queued → running → completed | failed | cancelled. */
public enum CampaignStatus {
  DRAFT,
  QUEUED,
  RUNNING,
  COMPLETED,
  FAILED,
  CANCELLED;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public Set<CampaignStatus> next() {
    switch (this) {
      case DRAFT:
        return EnumSet.of(QUEUED);
      case QUEUED:
        return EnumSet.of(RUNNING, CANCELLED, FAILED);
      case RUNNING:
        return EnumSet.of(COMPLETED, FAILED, CANCELLED);
      case FAILED:
      case CANCELLED:
        return EnumSet.of(QUEUED);
      default:
        return EnumSet.noneOf(CampaignStatus.class);
    }
  }

  public boolean canMoveTo(CampaignStatus target) {
    return next().contains(target);
  }

  public boolean canLaunch() {
    return canMoveTo(QUEUED);
  }

  public boolean canCancel() {
    return this == QUEUED || this == RUNNING;
  }

  public static Optional<CampaignStatus> parse(String value) {
    return WireNames.parseExact(values(), value, CampaignStatus::wireName);
  }
}
