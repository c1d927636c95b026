//! Unit tests of the upgrade rules on hand-written CRDs, with exact messages.

use super::*;
