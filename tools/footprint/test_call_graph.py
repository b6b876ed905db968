#!/usr/bin/env python3
"""Checks of footprint.py's resolution of calls through registers, on hand-written listings in
llvm-objdump's format: what it must resolve, and what it must leave unresolved (so that the
stack depth is reported unknown rather than wrong).

Usage: python3 tools/footprint/test_call_graph.py
"""

import unittest

import footprint

# Function A, whose body each test gives, at 0x100; B at 0x200 and C at 0x300. The literal pool
# holds B's address (Thumb bit set) at 0x1000 and C's at 0x1004.
FUNCTIONS = {0x100: "A", 0x200: "B", 0x300: "C"}
WORDS = {0x1000: 0x201, 0x1004: 0x301}
LOAD_B = "ldr r4, [pc, #0x10] @ 0x1000"
LOAD_C = "ldr r4, [pc, #0x10] @ 0x1004"


def analyse(body):
    """(A's callees, A's unresolved calls) for A's body: 2-byte instructions, `name:` labels,
    `@name` for a label's address in a branch."""
    labels, at = {}, 0x100
    for item in body:
        if item.endswith(":"):
            labels[item[:-1]] = at
        else:
            at += 2
    lines, at = ["00000100 <A>:"], 0x100
    for item in body:
        if item.endswith(":"):
            continue
        for name, address in labels.items():
            item = item.replace(f"@{name}", f"{address:#x} <A+{address - 0x100:#x}>")
        mnemonic, _, operands = item.partition(" ")
        lines.append(f" {at:x}:      \t{mnemonic}\t{operands}")
        at += 2
    lines += ["", "00000200 <B>:", " 200:      \tbx\tlr", "", "00000300 <C>:", " 300:      \tbx\tlr"]
    saved = footprint.objdump, footprint.output, footprint.word_at
    footprint.objdump = lambda: "llvm-objdump"
    footprint.output = lambda *command: "\n".join(lines)
    footprint.word_at = lambda elf, table, address: WORDS.get(address)
    try:
        graph, _ = footprint.call_graph("a.elf", None, None, FUNCTIONS)
    finally:
        footprint.objdump, footprint.output, footprint.word_at = saved
    callees, unresolved = graph[0x100]
    return {FUNCTIONS[callee] for callee in callees}, unresolved


class Resolved(unittest.TestCase):
    def check(self, body, callees):
        self.assertEqual(analyse(body), (callees, []))

    def test_literal_pool(self):
        self.check([LOAD_B, "blx r4", "bx lr"], {"B"})

    def test_callee_saved_register_across_a_call(self):
        self.check([LOAD_B, "bl 0x300 <C>", "blx r4"], {"B", "C"})

    def test_paths_that_agree(self):
        self.check([LOAD_B, "cbz r0, @join", "mov r0, r1", "join:", "blx r4"], {"B"})

    def test_moves_through_lr(self):
        self.check([LOAD_B, "mov lr, r4", "mov r4, r0", "blx lr"], {"B"})

    def test_spill_and_reload(self):
        self.check([LOAD_B, "str r4, [sp, #0x4]", "mov r4, r0", "ldr r5, [sp, #0x4]", "blx r5"], {"B"})

    def test_reload_through_the_frame_pointer(self):
        body = ["push {r7, lr}", "add r7, sp, #0x0", "sub sp, #0x8", LOAD_B, "str r4, [sp, #0x4]",
                "ldr r5, [r7, #-4]", "blx r5"]
        self.check(body, {"B"})

    def test_push_and_pop(self):
        self.check([LOAD_B, "mov lr, r4", "push {r4, lr}", "mov lr, r0", "pop {r4, r6}", "blx r6"], {"B"})

    def test_conditional_move_of_the_same_value(self):
        self.check([LOAD_B, "mov r5, r4", "cmp r0, #0x0", "it eq", "moveq r4, r5", "blx r4"], {"B"})

    def test_indirect_tail_call(self):
        self.check([LOAD_C, "bx r4"], {"C"})


class Unresolved(unittest.TestCase):
    def check(self, body):
        self.assertNotEqual(analyse(body)[1], [])

    def test_unknown_register(self):
        self.check(["blx r3"])

    def test_caller_saved_register_across_a_call(self):
        self.check(["ldr r2, [pc, #0x10] @ 0x1000", "bl 0x300 <C>", "blx r2"])

    def test_paths_that_disagree(self):
        self.check([LOAD_B, "cbz r0, @join", LOAD_C, "join:", "blx r4"])

    def test_conditional_move(self):
        self.check([LOAD_B, "cmp r0, #0x0", "it eq", "moveq r4, r1", "blx r4"])

    def test_second_register_of_ldrd(self):
        self.check([LOAD_B, "mov r1, r4", "ldrd r0, r1, [r2]", "blx r1"])

    def test_spill_across_a_call(self):
        self.check([LOAD_B, "str r4, [sp, #0x4]", "bl 0x300 <C>", "ldr r5, [sp, #0x4]", "blx r5"])

    def test_spill_and_a_store_through_a_pointer(self):
        self.check([LOAD_B, "str r4, [sp, #0x4]", "str r0, [r1]", "ldr r5, [sp, #0x4]", "blx r5"])

    def test_byte_store_over_a_spill(self):
        self.check([LOAD_B, "str r4, [sp, #0x4]", "strb r0, [sp, #0x5]", "ldr r5, [sp, #0x4]", "blx r5"])

    def test_loop_that_changes_the_register(self):
        self.check([LOAD_B, "top:", "blx r4", "mov r4, r0", "b @top"])

    def test_function_with_a_jump_table(self):
        self.check([LOAD_B, "tbb [pc, r0]", "blx r4"])

    def test_branch_into_no_function(self):
        self.check(["b 0x400 <D>"])


if __name__ == "__main__":
    unittest.main()
