package dev.svc.core.domain;

import java.util.regex.Pattern;

/**
 * The grammar of a container image reference as Docker's distribution library defines it:
 * {@code [registry[:port]/]path[:tag][@algorithm:hex]}, path components lowercase letters and
 * digits joined by '.', '_', '__' or dashes, a tag of at most 128 word characters, dots and
 * dashes. Nothing else gets through: no spaces, no leading '-' (a reference that is really a
 * command-line flag), no shell characters.
 */
public final class ImageReference {

  private static final String DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
  private static final String HOST = "(?:" + DOMAIN_COMPONENT + "(?:\\." + DOMAIN_COMPONENT + ")*|\\[[a-fA-F0-9:]+\\])";
  private static final String DOMAIN = HOST + "(?::[0-9]{1,5})?";
  private static final String PATH_COMPONENT = "[a-z0-9]+(?:(?:[_.]|__|-+)[a-z0-9]+)*";
  private static final String NAME = "(?:" + DOMAIN + "/)?" + PATH_COMPONENT + "(?:/" + PATH_COMPONENT + ")*";
  private static final String TAG = "[\\w][\\w.-]{0,127}";
  private static final String DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
  private static final Pattern REFERENCE = Pattern.compile("(" + NAME + ")(?::" + TAG + ")?(?:@" + DIGEST + ")?");

  /** Docker's limit on the name part (registry and path). */
  private static final int MAX_NAME_LENGTH = 255;

  private ImageReference() {
  }

  public static boolean isValid(String reference) {
    if (reference == null || reference.length() > MAX_NAME_LENGTH + 1 + 128 + 200) {
      return false;
    }
    var matcher = REFERENCE.matcher(reference);
    return matcher.matches() && matcher.group(1).length() <= MAX_NAME_LENGTH;
  }
}
