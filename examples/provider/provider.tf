# The provider needs no configuration yet; delivery targets (kubernetes, git)
# arrive with the resources.
provider "tenon" {}
