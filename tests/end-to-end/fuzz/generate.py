#!/usr/bin/env python3
"""Generates a random, valid, race-free OpenCL C program and its launch sequence (a program
description for fuzz_driver), deterministically from a seed.

  generate.py SEED [--small] [-o FILE]     (--small: sizes Oclgrind runs quickly)

Every generated access is simulated here over the concrete NDRange of its launch: buffers are
sized so that every access is in bounds, and a kernel is rejected (and drawn again) when two
work-items may write the same element non-atomically, when a work-item reads an element another
work-item of the same launch writes, or when a buffer is both updated atomically and accessed
plainly in one kernel. The reference is therefore well defined. Float results are exactly
reproducible: float data are multiples of 1/4, and kernels only add, subtract, compare and
multiply by powers of two (no product can be contracted differently), in a fixed order.
Standard library only.
"""
import argparse
import random
import sys

FORMAT_HEADER = "clsplit-fuzz 1"


class Invalid(Exception):
    """The drawn kernel is not valid for its launch: draw another."""


class Buffer:
    def __init__(self, name, ctype, role, values=None):
        self.name = name
        self.ctype = ctype          # "int" | "float"
        self.role = role            # "data" | "index" (read-only, contents known here)
        self.values = values        # contents of index buffers
        self.max_index = -1         # highest element any access touches
        self.init = None            # "zero" | ("rand", seed, lo, hi)


class Access:
    """One access of a kernel: `indices(item)` lists the elements work-item `item` may touch
    (guards ignored: an over-approximation is safe for sizing and race checks)."""

    def __init__(self, buffer, mode, indices):
        self.buffer = buffer
        self.mode = mode            # "read" | "write" | "atomic"
        self.indices = indices


class Item:
    """One work-item of a concrete launch."""

    def __init__(self, gid, lid, grp, num_groups, gsize, lsize):
        self.gid, self.lid, self.grp, self.num_groups, self.gsize, self.lsize = gid, lid, grp, num_groups, gsize, lsize


def work_items(launch):
    dims, glob, local, offset = launch["dims"], launch["global"], launch["local"], launch["offset"]
    lsize = local if local else [1] * dims  # NULL local: kernels never depend on group geometry
    ranges = []
    for d in range(dims):
        ranges.append(range(offset[d], offset[d] + glob[d]))
    items = []
    ys = ranges[1] if dims == 2 else [0]
    for y in ys:
        for x in ranges[0]:
            gid = [x, y]
            rel = [x - offset[0], y - (offset[1] if dims == 2 else 0)]
            l = [lsize[0], lsize[1] if dims == 2 else 1]
            items.append(Item(gid, [rel[0] % l[0], rel[1] % l[1]], [rel[0] // l[0], rel[1] // l[1]],
                              [glob[0] // l[0], (glob[1] // l[1]) if dims == 2 else 1],
                              [glob[0], glob[1] if dims == 2 else 1], l))
    return items


class KernelBuilder:
    """Builds one kernel: parameters, body lines, accesses for the simulation."""

    def __init__(self, gen, name, launch):
        self.gen, self.rng, self.name, self.launch = gen, gen.rng, name, launch
        self.params = []     # (C declaration, launch argument)
        self.param_buffers = {}
        self.scalars = {}    # name -> value
        self.lines = []
        self.accesses = []
        self.pragmas = []
        self.local_tile = None  # (name, size, ctype) when the kernel stages data in __local memory
        self.counter = 0
        self.written = set()
        self.atomics = set()

    def fresh(self, prefix):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    def buffer_param(self, buf, const=False):
        if buf.name not in self.param_buffers:
            self.param_buffers[buf.name] = buf
            self.params.append(("__global %s* %s" % (buf.ctype, buf.name), "b:" + buf.name))
        return buf.name

    def scalar(self, prefix, value):
        name = self.fresh(prefix)
        self.scalars[name] = value
        self.params.append(("int %s" % name, "i:%d" % value))
        return name

    # --- Index expressions of the current work-item ----------------------------------------
    def dims(self):
        return self.launch["dims"]

    def linear_index(self):
        """(C expression, function of the item) of a linear work-item index."""
        if self.dims() == 1:
            return "j", lambda it: it.gid[0]
        return "(y * W + x)", lambda it: it.gid[1] * self.W + it.gid[0]

    # --- Reads -------------------------------------------------------------------------------
    def read_term(self, ctype, depth=0):
        """A C expression of type `ctype` reading somewhere; registers its accesses."""
        rng = self.rng
        choices = ["affine", "affine", "affine", "indirect", "loop", "scalar_const"]
        if self.local_tile:
            choices += ["tile", "tile", "tile"]
        kind = rng.choice(choices)
        if kind == "scalar_const":
            return self.convert(str(rng.randint(0, 9)), "int", ctype)
        if kind == "tile":
            tname, tsize, tctype = self.local_tile
            s = rng.randint(1, tsize)
            pattern = rng.choice(["rot", "rev", "own"])
            if pattern == "rot":
                expr = "%s[(lid + %d) %% %d]" % (tname, s, tsize)
            elif pattern == "rev":
                expr = "%s[%d - lid]" % (tname, tsize - 1)
            else:
                expr = "%s[lid]" % tname
            return self.convert(expr, tctype, ctype)
        src = self.gen.pick_readable(self)
        name = self.buffer_param(src, const=True)
        if kind == "affine":
            expr, fn = self.affine_index()
            self.accesses.append(Access(src, "read", lambda it, fn=fn: [fn(it)]))
            return self.convert("%s[%s]" % (name, expr), src.ctype, ctype)
        if kind == "indirect":
            lin, lfn = self.linear_index()
            flavour = rng.choice(["random", "monotone", "monotone_pragma"])
            count = self.max_linear() + 1 + rng.randint(0, 3)
            span = self.gen.domain
            if flavour == "random":
                values = [rng.randrange(span) for _ in range(count)]
            else:
                values, v = [], rng.randint(0, 3)
                for _ in range(count):
                    values.append(min(v, span - 1))
                    v += rng.randint(0, 2)
            idx = self.gen.index_buffer(values)
            self.buffer_param(idx, const=True)
            if flavour == "monotone_pragma":
                self.pragmas.append("#pragma opencl_increasing_buffer %s" % idx.name)
            self.accesses.append(Access(idx, "read", lambda it, lfn=lfn: [lfn(it)]))
            self.accesses.append(Access(src, "read", lambda it, lfn=lfn, v=values: [v[lfn(it)]]))
            return self.convert("%s[%s[%s]]" % (name, idx.name, lin), src.ctype, ctype)
        # A loop accumulating into a local variable declared before the statement.
        acc = self.fresh("acc")
        lin, lfn = self.linear_index()
        acc_type = "uint" if src.ctype == "int" else "float"
        term = "(uint)%s" if src.ctype == "int" else "%s"
        flavour = rng.choice(["const", "arg", "csr"])
        if flavour == "const":
            trips, stride = rng.randint(1, 4), rng.randint(1, 4)
            self.lines.append("%s %s = 0;" % (acc_type, acc))
            self.lines.append("for (int k = 0; k < %d; k++) %s += %s;" % (
                trips, acc, term % ("%s[%d * %s + k]" % (name, stride, lin))))
            self.accesses.append(Access(src, "read", lambda it, lfn=lfn, t=trips, s=stride:
                                        [s * lfn(it) + k for k in range(t)]))
        elif flavour == "arg":
            m_value = rng.randint(0, 4)
            m = self.scalar("m", m_value)
            stride = self.max_linear() + 1
            self.lines.append("%s %s = 0;" % (acc_type, acc))
            self.lines.append("for (int k = 0; k < %s; k++) %s += %s;" % (
                m, acc, term % ("%s[k * %d + %s]" % (name, stride, lin))))
            self.accesses.append(Access(src, "read", lambda it, lfn=lfn, mv=m_value, s=stride:
                                        [k * s + lfn(it) for k in range(mv)]))
        else:
            count = self.max_linear() + 2
            values, v = [], 0
            for _ in range(count):
                values.append(v)
                v += rng.randint(0, 3)
            rows = self.gen.index_buffer(values)
            self.buffer_param(rows, const=True)
            if rng.random() < 0.7:
                self.pragmas.append("#pragma opencl_increasing_buffer %s" % rows.name)
            self.lines.append("%s %s = 0;" % (acc_type, acc))
            self.lines.append("for (int k = %s[%s]; k < %s[%s + 1]; k++) %s += %s;" % (
                rows.name, lin, rows.name, lin, acc, term % ("%s[k]" % name)))
            self.accesses.append(Access(rows, "read", lambda it, lfn=lfn: [lfn(it), lfn(it) + 1]))
            self.accesses.append(Access(src, "read", lambda it, lfn=lfn, r=values:
                                        list(range(r[lfn(it)], r[lfn(it) + 1]))))
        if acc_type == "uint":
            return self.convert("(int)(%s & 0xffffu)" % acc, "int", ctype)
        return self.convert("(%s * 0.25f)" % acc, "float", ctype)

    def max_linear(self):
        l = self.launch
        if self.dims() == 1:
            return l["offset"][0] + l["global"][0] - 1
        return (l["offset"][1] + l["global"][1] - 1) * self.W + l["offset"][0] + l["global"][0] - 1

    def affine_index(self):
        """A read index: (C expression, function of the item)."""
        rng = self.rng
        l = self.launch
        if self.dims() == 1:
            kind = rng.choice(["shift", "shift", "strided", "reversed", "half"])
            if kind == "shift":
                c = rng.randint(-2, 3)
                return "j + %d" % c if c >= 0 else "j - %d" % -c, lambda it, c=c: it.gid[0] + c
            if kind == "strided":
                a, c = rng.randint(2, 4), rng.randint(0, 3)
                return "%d * j + %d" % (a, c), lambda it, a=a, c=c: a * it.gid[0] + c
            if kind == "reversed":
                n_value = l["offset"][0] + l["global"][0] + rng.randint(0, 3)
                n = self.scalar("n", n_value)
                return "%s - 1 - j" % n, lambda it, n=n_value: n - 1 - it.gid[0]
            return "j >> 1", lambda it: it.gid[0] >> 1
        kind = rng.choice(["neighbour", "neighbour", "transposed"])
        if kind == "neighbour":
            dx, dy = rng.randint(-1, 2), rng.randint(-1, 2)
            return "(y + %d) * W + (x + %d)" % (dy, dx), lambda it, dx=dx, dy=dy: (it.gid[1] + dy) * self.W + it.gid[0] + dx
        return "x * H + y", lambda it: it.gid[0] * self.H + it.gid[1]

    def convert(self, expr, from_type, to_type):
        if from_type == to_type:
            return expr
        if to_type == "float":
            return "(float)(%s)" % expr  # ints stay below 2^24 in magnitude: exact
        return "(convert_int_sat(%s) & 0xffff)" % expr

    def combine(self, terms, ctype):
        rng = self.rng
        if ctype == "int":
            coefficients = [rng.choice([1, 1, 2, 3, 5]) for _ in terms]
            parts = ["(uint)(%s) * %du" % (t, c) for t, c in zip(terms, coefficients)]
            return "(int)((%s + %du) & 0xffffu)" % (" + ".join(parts), rng.randint(0, 9))
        if len(terms) == 1:
            return rng.choice(["%s", "(%s * 0.5f)", "(%s + 1.0f)", "(%s - 0.25f)"]) % terms[0]
        op = rng.choice(["avg", "fmax", "fmin", "diff"])
        if op == "avg":
            scale = {2: "0.5f", 3: "0.25f", 4: "0.25f"}[len(terms)]
            return "((%s) * %s)" % (" + ".join(terms), scale)
        if op == "diff":
            return "((%s - %s) * 0.5f)" % (terms[0], terms[1])
        expr = terms[0]
        for t in terms[1:]:
            expr = "%s(%s, %s)" % (op, expr, t)
        return expr

    # --- Writes ------------------------------------------------------------------------------
    def write_index(self):
        rng = self.rng
        l = self.launch
        if self.dims() == 1:
            kind = rng.choice(["own", "own", "strided", "shift", "reversed", "increasing", "grid_stride"])
            if kind == "own":
                return "j", lambda it: [it.gid[0]], None
            if kind == "strided":
                a = rng.randint(2, 3)
                c = rng.randint(0, a - 1)
                return "%d * j + %d" % (a, c), lambda it, a=a, c=c: [a * it.gid[0] + c], None
            if kind == "shift":
                c = rng.randint(1, 5)
                return "j + %d" % c, lambda it, c=c: [it.gid[0] + c], None
            if kind == "reversed":
                n_value = l["offset"][0] + l["global"][0] + rng.randint(0, 3)
                n = self.scalar("n", n_value)
                return "%s - 1 - j" % n, lambda it, n=n_value: [n - 1 - it.gid[0]], None
            if kind == "grid_stride":
                n_value = l["offset"][0] + l["global"][0] * rng.randint(1, 3) - rng.randint(0, 2)
                n = self.scalar("n", n_value)
                return ("i", lambda it, n=n_value: list(range(it.gid[0], n, it.gsize[0])),
                        "for (int i = j; i < %s; i += get_global_size(0))" % n)
            count = self.max_linear() + 1
            values, v = [], rng.randint(0, 2)
            for _ in range(count):
                values.append(v)
                v += rng.randint(1, 3)
            idx = self.gen.index_buffer(values)
            self.buffer_param(idx, const=True)
            if rng.random() < 0.85:
                self.pragmas.append("#pragma opencl_increasing_buffer %s" % idx.name)
            self.accesses.append(Access(idx, "read", lambda it: [it.gid[0]]))
            return "%s[j]" % idx.name, lambda it, v=values: [v[it.gid[0]]], None
        kind = rng.choice(["own", "own", "inner", "transposed"])
        if kind == "own":
            return "y * W + x", lambda it: [it.gid[1] * self.W + it.gid[0]], None
        if kind == "inner":
            return "(y + 1) * W + (x + 1)", lambda it: [(it.gid[1] + 1) * self.W + it.gid[0] + 1], None
        return "x * H + y", lambda it: [it.gid[0] * self.H + it.gid[1]], None

    def guard(self):
        """An optional condition around a write (C text or None)."""
        rng = self.rng
        r = rng.random()
        lin, _ = self.linear_index()
        l = self.launch
        if r < 0.55:
            return None
        if r < 0.7:
            end = l["offset"][0] + rng.randint(1, l["global"][0])
            n = self.scalar("n", end)
            return "x < %s" % n if self.dims() == 2 else "j < %s" % n
        if r < 0.85:
            return "%s %% 3 == %d" % (lin, rng.randint(0, 2))
        # Data-dependent: a read of some readable buffer at an in-bounds affine index.
        src = self.gen.pick_readable(self)
        name = self.buffer_param(src, const=True)
        expr, fn = self.affine_index()
        self.accesses.append(Access(src, "read", lambda it, fn=fn: [fn(it)]))
        threshold = "%d" % rng.randint(0, 500) if src.ctype == "int" else "%d.5f" % rng.randint(0, 50)
        return "%s[%s] > %s" % (name, expr, threshold)

    def plain_write(self, out, in_place):
        idx_expr, idx_fn, loop = self.write_index()
        terms = [self.read_term(out.ctype) for _ in range(self.rng.randint(1, 3))]
        # In place: the work-item reads back exactly the element it writes.
        if in_place and loop is None:
            terms.insert(0, "%s[%s]" % (out.name, idx_expr))
            self.accesses.append(Access(out, "read", idx_fn))
        value = self.combine(terms, out.ctype)
        self.buffer_param(out)
        statement = "%s[%s] = %s;" % (out.name, idx_expr, value)
        guard = self.guard()
        if guard:
            statement = "if (%s) %s" % (guard, statement)
        if loop:
            statement = "%s %s" % (loop, statement)
        self.lines.append(statement)
        self.accesses.append(Access(out, "write", idx_fn))

    def atomic_update(self, target):
        rng = self.rng
        bins = rng.choice([1, 4, 16, 64])
        lin, lfn = self.linear_index()
        self.atomics.add(target.name)
        which = rng.choice(["data", "data", "item"])
        if which == "data":
            key = self.read_term("int")
            slot = "((uint)(%s) %% %du)" % (key, bins)
        else:
            slot = "(%s %% %d)" % (lin, bins)
        op = rng.choice(["add", "inc", "max", "or", "sub"])
        if op == "add":
            call = "atomic_add(&%s[%s], %d)" % (target.name, slot, rng.randint(1, 5))
        elif op == "sub":
            call = "atomic_sub(&%s[%s], %d)" % (target.name, slot, rng.randint(1, 5))
        elif op == "inc":
            call = "atomic_inc(&%s[%s])" % (target.name, slot)
        elif op == "max":
            call = "atomic_max(&%s[%s], (int)(%s & 0xff))" % (target.name, slot, lin)
        else:
            call = "atomic_or(&%s[%s], 1 << (%s & 7))" % (target.name, slot, lin)
        self.buffer_param(target)
        guard = self.guard()
        self.lines.append(("if (%s) " % guard if guard else "") + call + ";")
        self.accesses.append(Access(target, "atomic", lambda it, b=bins: list(range(b))))

    def group_reduce(self, out):
        """Work-item 0 of each group sums the tile and writes one element per group."""
        tname, tsize, tctype = self.local_tile
        acc = self.fresh("acc")
        if tctype == "int":
            self.lines.append("if (lid == 0) { uint %s = 0; for (int k = 0; k < %d; k++) %s += (uint)%s[k];"
                              % (acc, tsize, acc, tname))
            value = self.convert("(int)(%s & 0xffffu)" % acc, "int", out.ctype)
        else:
            self.lines.append("if (lid == 0) { float %s = 0.0f; for (int k = 0; k < %d; k++) %s += %s[k];"
                              % (acc, tsize, acc, tname))
            value = self.convert("(%s * 0.125f)" % acc, "float", out.ctype)
        c = self.rng.randint(0, 3)
        if self.dims() == 1:
            group = "get_group_id(0) + %d" % c
            fn = lambda it, c=c: [it.grp[0] + c] if it.lid == [0, 0] else []
        else:
            group = "get_group_id(1) * get_num_groups(0) + get_group_id(0) + %d" % c
            fn = lambda it, c=c: [it.grp[1] * it.num_groups[0] + it.grp[0] + c] if it.lid == [0, 0] else []
        self.buffer_param(out)
        self.lines.append("  %s[%s] = %s; }" % (out.name, group, value))
        self.accesses.append(Access(out, "write", fn))

    # --- The kernel ----------------------------------------------------------------------------
    def build(self):
        rng = self.rng
        l = self.launch
        if self.dims() == 2:
            self.W = l["offset"][0] + l["global"][0] + rng.randint(1, 3)
            self.H = l["offset"][1] + l["global"][1] + rng.randint(0, 2)
            self.scalars["W"] = self.W
            self.scalars["H"] = self.H
            self.params.append(("int W", "i:%d" % self.W))
            self.params.append(("int H", "i:%d" % self.H))
        if l["local"] and rng.random() < 0.6:
            tsize = l["local"][0] * (l["local"][1] if self.dims() == 2 else 1)
            tctype = rng.choice(["int", "float"])
            if rng.random() < 0.5:
                tname = "tile_arg"
                self.params.append(("__local %s* %s" % (tctype, tname), "l:%d" % (4 * tsize)))
            else:
                tname = "tile"
                self.lines.append("__local %s tile[%d];" % (tctype, tsize))
            if self.dims() == 1:
                self.lines.append("int lid = get_local_id(0);")
            else:
                self.lines.append("int lid = get_local_id(1) * %d + get_local_id(0);" % l["local"][0])
            value = self.read_term(tctype)
            self.lines.append("%s[lid] = %s;" % (tname, value))
            self.lines.append("barrier(CLK_LOCAL_MEM_FENCE);")
            self.local_tile = (tname, tsize, tctype)
        elif rng.random() < 0.15:
            # An early exit (no barrier follows): the remaining accesses happen only below it.
            end = l["offset"][0] + rng.randint(1, l["global"][0])
            n = self.scalar("n", end)
            self.lines.append("if (%s >= %s) return;" % ("x" if self.dims() == 2 else "j", n))
        statements = rng.randint(1, 2)
        targets = []
        for s in range(statements):
            r = rng.random()
            if r < 0.15:
                target = self.gen.pick_atomic_target(self)
                targets.append(target)
                self.atomic_update(target)
                continue
            out = self.gen.pick_writable(self)
            targets.append(out)
            self.written.add(out.name)
            if self.local_tile and r < 0.35:
                self.group_reduce(out)
            else:
                self.plain_write(out, in_place=rng.random() < 0.25)
        return targets

    def source(self):
        head = "__kernel void %s(%s) {" % (self.name, ", ".join(p[0] for p in self.params))
        body = []
        if self.dims() == 1:
            body.append("int j = get_global_id(0);")
        else:
            body.append("int x = get_global_id(0);")
            body.append("int y = get_global_id(1);")
        body += self.lines
        body += self.pragmas
        return head + "\n" + "\n".join("  " + line for line in body) + "\n}\n"


class Relaunch:
    def __init__(self, launch, accesses):
        self.launch, self.accesses = launch, accesses


class Generator:
    def __init__(self, seed, small):
        self.seed = seed
        self.small = small
        self.rng = random.Random(seed)
        self.buffers = []
        self.index_count = 0
        self.domain = 0
        self.writers = set()   # data buffers some earlier kernel wrote

    def new_data_buffer(self):
        b = Buffer("d%d" % len([x for x in self.buffers if x.role == "data"]), self.rng.choice(["int", "float"]),
                   "data")
        self.buffers.append(b)
        return b

    def index_buffer(self, values):
        b = Buffer("idx%d" % self.index_count, "int", "index", values)
        self.index_count += 1
        self.buffers.append(b)
        return b

    def data_buffers(self):
        return [b for b in self.buffers if b.role == "data"]

    def pick_readable(self, kernel):
        """A data buffer the kernel does not write (reads of written buffers are in-place only)."""
        candidates = [b for b in self.data_buffers() if b.name not in kernel.written and b.name not in kernel.atomics]
        preferred = [b for b in candidates if b.name in self.writers]
        if preferred and self.rng.random() < 0.6:
            return self.rng.choice(preferred)
        if candidates and self.rng.random() < 0.8:
            return self.rng.choice(candidates)
        b = self.new_data_buffer()
        return b

    def pick_writable(self, kernel):
        candidates = [b for b in self.data_buffers()
                      if b.name not in kernel.param_buffers or b.name in kernel.written]
        candidates = [b for b in candidates if b.name not in kernel.atomics]
        if candidates and self.rng.random() < 0.6:
            return self.rng.choice(candidates)
        return self.new_data_buffer()

    def pick_atomic_target(self, kernel):
        candidates = [b for b in self.data_buffers() if b.ctype == "int" and b.name not in kernel.param_buffers]
        if candidates and self.rng.random() < 0.5:
            return self.rng.choice(candidates)
        b = Buffer("d%d" % len(self.data_buffers()), "int", "data")
        self.buffers.append(b)
        return b

    def random_launch(self):
        rng = self.rng
        dims = 2 if rng.random() < 0.3 else 1
        limit = 192 if self.small else 1024
        launch = {"dims": dims, "local": None}
        if dims == 1:
            if rng.random() < (0.75 if self.small else 0.6):
                lsz = rng.choice([1, 2, 4, 8, 16, 32] if not self.small else [1, 2, 4, 8, 16])
                groups = rng.randint(1, max(1, limit // lsz))
                launch["global"] = [lsz * groups]
                launch["local"] = [lsz]
            else:
                launch["global"] = [rng.randint(1, limit) if rng.random() < 0.2 else rng.randint(limit // 4, limit)]
            launch["offset"] = [rng.randint(0, 40)] if rng.random() < 0.35 else [0]
        else:
            side = 16 if self.small else 40
            if rng.random() < 0.6:
                lx, ly = rng.choice([1, 2, 4, 8]), rng.choice([1, 2, 4])
                launch["global"] = [lx * rng.randint(1, max(1, side // lx)), ly * rng.randint(1, max(1, side // ly))]
                launch["local"] = [lx, ly]
            else:
                launch["global"] = [rng.randint(1, side), rng.randint(1, side)]
            launch["offset"] = [rng.randint(0, 5), rng.randint(0, 5)] if rng.random() < 0.35 else [0, 0]
        launch["has_offset"] = any(launch["offset"]) or rng.random() < 0.1
        return launch

    def sub_launch(self, launch):
        """A launch of the same kernel over a sub-range of `launch` (whole work-groups, so the
        accesses are a subset of the checked ones, and the groups' geometry is unchanged)."""
        rng = self.rng
        sub = {"dims": launch["dims"], "local": launch["local"], "global": [], "offset": []}
        for d in range(launch["dims"]):
            unit = launch["local"][d] if launch["local"] else 1
            groups = launch["global"][d] // unit
            first = rng.randint(0, groups - 1)
            count = rng.randint(1, groups - first)
            sub["offset"].append(launch["offset"][d] + first * unit)
            sub["global"].append(count * unit)
        sub["has_offset"] = any(sub["offset"]) or rng.random() < 0.1
        return sub

    def check(self, kernel):
        """Simulates the launch: in-bounds (non-negative) indices, no write-write or read-write
        race between work-items, no mixing of atomic and plain accesses."""
        items = work_items(kernel.launch)
        writer = {}     # (buffer, index) -> item number
        modes = {}      # buffer -> set of modes
        for a in kernel.accesses:
            modes.setdefault(a.buffer.name, set()).add(a.mode)
        for name, m in modes.items():
            if "atomic" in m and len(m) > 1:
                raise Invalid("atomic and plain accesses to %s" % name)
        for n, it in enumerate(items):
            for a in kernel.accesses:
                if a.mode != "write":
                    continue
                for i in a.indices(it):
                    if i < 0:
                        raise Invalid("negative write index")
                    key = (a.buffer.name, i)
                    if writer.setdefault(key, n) != n:
                        raise Invalid("two work-items write %s[%d]" % key)
        maxima = {}
        for n, it in enumerate(items):
            for a in kernel.accesses:
                for i in a.indices(it):
                    if i < 0:
                        raise Invalid("negative index")
                    if a.mode == "read" and writer.get((a.buffer.name, i), n) != n:
                        raise Invalid("%s[%d] read by one work-item, written by another" % (a.buffer.name, i))
                    maxima[a.buffer.name] = max(maxima.get(a.buffer.name, -1), i)
        if len(items) > 0 and not maxima and not kernel.accesses:
            raise Invalid("no access")
        return maxima

    def generate(self):
        rng = self.rng
        kernels_wanted = rng.randint(1, 3)
        self.domain = 64 if self.small else rng.choice([64, 256, 1024])
        kernels = []
        for k in range(kernels_wanted):
            for attempt in range(200):
                saved = (list(self.buffers), self.index_count)
                launch = self.random_launch()
                kernel = KernelBuilder(self, "k%d" % k, launch)
                try:
                    targets = kernel.build()
                    maxima = self.check(kernel)
                except Invalid:
                    self.buffers, self.index_count = saved
                    continue
                for b in self.buffers:
                    if b.name in maxima:
                        b.max_index = max(b.max_index, maxima[b.name])
                for t in targets:
                    self.writers.add(t.name)
                kernels.append(kernel)
                break
            else:
                raise RuntimeError("seed %d: no valid kernel after 200 draws" % self.seed)
        # The launch sequence of one iteration: every kernel in order, and some kernels again
        # over a sub-range (anywhere in the sequence: an in-order queue keeps them race-free).
        sequence = [(k, k.launch) for k in kernels]
        for kernel in kernels:
            if rng.random() < 0.3:
                sub = self.sub_launch(kernel.launch)
                self.check(Relaunch(sub, kernel.accesses))  # a subset of the checked work-items
                sequence.insert(rng.randint(0, len(sequence)), (kernel, sub))
        iterations = rng.randint(1, 5)
        readback = 1 if rng.random() < 0.3 else 0
        lines = [FORMAT_HEADER, "seed %d%s" % (self.seed, " small" if self.small else ""),
                 "iterations %d" % iterations, "readback_each %d" % readback]
        for b in self.buffers:
            if b.role == "index":
                count = max(len(b.values), b.max_index + 1)
                values = b.values + [0] * (count - len(b.values))
                lines.append("buffer %s int %d values %s" % (b.name, count, " ".join(map(str, values))))
            else:
                count = max(b.max_index + 1, 1) + rng.randint(0, 8)
                if rng.random() < 0.2:
                    lines.append("buffer %s %s %d zero" % (b.name, b.ctype, count))
                else:
                    lines.append("buffer %s %s %d rand %d %d %d" % (
                        b.name, b.ctype, count, rng.randrange(1 << 40), -20 if b.ctype == "float" else -100,
                        100 if b.ctype == "float" else 1000))
        for kernel, l in sequence:
            fmt = lambda v: ",".join(map(str, v))
            lines.append("launch %s %d %s %s %s %s" % (
                kernel.name, l["dims"], fmt(l["global"]), fmt(l["local"]) if l["local"] else "null",
                fmt(l["offset"]) if l["has_offset"] else "none", " ".join(p[1] for p in kernel.params)))
        lines.append("source")
        source = "// clsplit fuzz program, seed %d\n" % self.seed + "\n".join(k.source() for k in kernels)
        return "\n".join(lines) + "\n" + source


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("seed", type=int)
    parser.add_argument("--small", action="store_true", help="sizes Oclgrind simulates quickly")
    parser.add_argument("-o", "--output")
    a = parser.parse_args()
    text = Generator(a.seed, a.small).generate()
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
