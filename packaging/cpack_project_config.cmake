# SPDX-License-Identifier: MIT
# Read by cpack (CPACK_PROJECT_CONFIG_FILE). Each component's description starts with its own
# summary line; CPackDeb would put CPACK_PACKAGE_DESCRIPTION_SUMMARY (the project's description)
# before it unless that is the default summary, so the default is made the same.
set(CPACK_DEFAULT_PACKAGE_DESCRIPTION_SUMMARY "${CPACK_PACKAGE_DESCRIPTION_SUMMARY}")
