// Package lp holds the packer's linear-programming kernels, free of any
// packing notion: Cover, a revised simplex for covering LPs that goes on
// from its last basis as columns are added or the demand changes (the
// restricted master of column generation, for the lower bound and for
// packing plans); CoveringDuals, a dense dual simplex for covering LPs
// with unit right-hand sides; and Packing, a dense primal simplex for
// packing LPs with unit right-hand sides. All work is capped by counts, so
// results are deterministic.
package lp
