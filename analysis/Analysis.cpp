// analyzeProgram(): front end -> analyzer -> transformer, with the on-disk cache in front.
#include "analysis/Analysis.h"
