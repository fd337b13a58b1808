// x86-64 operand helpers (see operands.h for what each one decides and why).
#include "hpcl/x86/operands.h"

namespace hpcl::x86 {

bool is_control_transfer(const ZydisDecodedInstruction& in) {
  if (in.meta.branch_type != ZYDIS_BRANCH_TYPE_NONE) return true;
  switch (in.meta.category) {
    case ZYDIS_CATEGORY_COND_BR:
    case ZYDIS_CATEGORY_UNCOND_BR:
    case ZYDIS_CATEGORY_CALL:
    case ZYDIS_CATEGORY_RET:
    case ZYDIS_CATEGORY_SYSCALL:
    case ZYDIS_CATEGORY_SYSRET:
    case ZYDIS_CATEGORY_INTERRUPT:
      return true;
    default:
      return false;
  }
}

bool direct_branch_target(const ZydisDecodedInstruction& in, uint64_t runtime_address,
                          uint64_t* target) {
  for (const auto& imm : in.raw.imm) {
    if (imm.size != 0 && imm.is_relative) {
      *target = runtime_address + in.length + static_cast<uint64_t>(imm.value.s);
      return true;
    }
  }
  return false;
}

bool is_fence_idiom(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops) {
  if ((in.attributes & ZYDIS_ATTRIB_HAS_LOCK) == 0) return false;
  if (in.mnemonic != ZYDIS_MNEMONIC_OR && in.mnemonic != ZYDIS_MNEMONIC_ADD) return false;
  if (in.operand_count_visible != 2) return false;
  const ZydisDecodedOperand& m = ops[0];
  const ZydisDecodedOperand& imm = ops[1];
  return m.type == ZYDIS_OPERAND_TYPE_MEMORY && m.mem.base == ZYDIS_REGISTER_RSP &&
         m.mem.index == ZYDIS_REGISTER_NONE && imm.type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
         imm.imm.value.u == 0;
}

int access_operand(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops) {
  if (in.mnemonic == ZYDIS_MNEMONIC_LEA || in.mnemonic == ZYDIS_MNEMONIC_NOP ||
      in.meta.category == ZYDIS_CATEGORY_NOP || in.meta.category == ZYDIS_CATEGORY_WIDENOP ||
      is_fence_idiom(in, ops)) {
    return -1;
  }
  const bool string_op = in.meta.category == ZYDIS_CATEGORY_STRINGOP;
  int found = -1;
  for (int i = 0; i < in.operand_count; ++i) {
    const ZydisDecodedOperand& op = ops[i];
    if (op.type != ZYDIS_OPERAND_TYPE_MEMORY) continue;
    if (op.mem.type != ZYDIS_MEMOP_TYPE_MEM && op.mem.type != ZYDIS_MEMOP_TYPE_VSIB) continue;
    if (op.actions == 0) continue;
    if (op.visibility != ZYDIS_OPERAND_VISIBILITY_EXPLICIT && !string_op) continue;
    if (!string_op) return i;
    if (found < 0) found = i;
    if (op.mem.base == ZYDIS_REGISTER_RSI || op.mem.base == ZYDIS_REGISTER_ESI ||
        op.mem.base == ZYDIS_REGISTER_SI) {
      return i;
    }
  }
  return found;
}

ZydisRegister gpr64(ZydisRegister r) {
  if (r == ZYDIS_REGISTER_NONE) return ZYDIS_REGISTER_NONE;
  const ZydisRegister big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
  if (big >= ZYDIS_REGISTER_RAX && big <= ZYDIS_REGISTER_R15) return big;
  return ZYDIS_REGISTER_NONE;
}

bool overwrites_address_register(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops,
                                 const ZydisDecodedOperand& m) {
  const ZydisRegister base = gpr64(m.mem.base);
  const ZydisRegister index = gpr64(m.mem.index);
  if (base == ZYDIS_REGISTER_NONE && index == ZYDIS_REGISTER_NONE) return false;
  for (int i = 0; i < in.operand_count; ++i) {
    const ZydisDecodedOperand& op = ops[i];
    if (op.type != ZYDIS_OPERAND_TYPE_REGISTER) continue;
    if ((op.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) == 0) continue;
    const ZydisRegister w = gpr64(op.reg.value);
    if (w != ZYDIS_REGISTER_NONE && (w == base || w == index)) return true;
  }
  return false;
}

RegSet reg_bit(ZydisRegister r) {
  const ZydisRegister g = gpr64(r);
  if (g != ZYDIS_REGISTER_NONE) return RegSet{1} << (g - ZYDIS_REGISTER_RAX);
  switch (ZydisRegisterGetClass(r)) {
    case ZYDIS_REGCLASS_XMM:
    case ZYDIS_REGCLASS_YMM:
    case ZYDIS_REGCLASS_ZMM: {
      const int id = ZydisRegisterGetId(r);
      return id >= 0 && id < 32 ? RegSet{1} << (16 + id) : 0;
    }
    default: return 0;
  }
}

RegSet registers_of(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops, unsigned actions,
                    bool with_addresses) {
  RegSet m = 0;
  for (int i = 0; i < in.operand_count; ++i) {
    const ZydisDecodedOperand& op = ops[i];
    if (op.type == ZYDIS_OPERAND_TYPE_REGISTER && (op.actions & actions) != 0) {
      m |= reg_bit(op.reg.value);
    } else if (with_addresses && op.type == ZYDIS_OPERAND_TYPE_MEMORY) {
      m |= reg_bit(op.mem.base) | reg_bit(op.mem.index);
    }
  }
  return m;
}

RegSet reads_of(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops) {
  return registers_of(in, ops, ZYDIS_OPERAND_ACTION_MASK_READ, true);
}

RegSet writes_of(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops) {
  return registers_of(in, ops, ZYDIS_OPERAND_ACTION_MASK_WRITE, false);
}

RegSet address_regs(const ZydisDecodedOperand& m) { return reg_bit(m.mem.base) | reg_bit(m.mem.index); }

bool stack_only(const ZydisDecodedOperand& m) {
  const ZydisRegister b = gpr64(m.mem.base);
  return (b == ZYDIS_REGISTER_RSP || b == ZYDIS_REGISTER_RBP) && m.mem.index == ZYDIS_REGISTER_NONE &&
         m.mem.segment != ZYDIS_REGISTER_FS && m.mem.segment != ZYDIS_REGISTER_GS;
}

bool constant_update(const ZydisDecodedInstruction& in, const ZydisDecodedOperand* ops, ZydisRegister r,
                     int64_t* delta) {
  if (in.operand_count_visible < 1) return false;
  const ZydisDecodedOperand& dst = ops[0];
  if (dst.type != ZYDIS_OPERAND_TYPE_REGISTER || dst.reg.value != r) return false;
  switch (in.mnemonic) {
    case ZYDIS_MNEMONIC_ADD:
    case ZYDIS_MNEMONIC_SUB:
      if (in.operand_count_visible != 2 || ops[1].type != ZYDIS_OPERAND_TYPE_IMMEDIATE) return false;
      *delta = in.mnemonic == ZYDIS_MNEMONIC_ADD ? ops[1].imm.value.s : -ops[1].imm.value.s;
      return true;
    case ZYDIS_MNEMONIC_INC: *delta = 1; return true;
    case ZYDIS_MNEMONIC_DEC: *delta = -1; return true;
    case ZYDIS_MNEMONIC_LEA:
      if (in.operand_count_visible != 2 || ops[1].type != ZYDIS_OPERAND_TYPE_MEMORY) return false;
      if (ops[1].mem.base != r || ops[1].mem.index != ZYDIS_REGISTER_NONE) return false;
      if (ops[1].mem.segment != ZYDIS_REGISTER_DS && ops[1].mem.segment != ZYDIS_REGISTER_NONE) return false;
      if (in.address_width != 64) return false;
      *delta = ops[1].mem.disp.has_displacement ? ops[1].mem.disp.value : 0;
      return true;
    default: return false;
  }
}

}  // namespace hpcl::x86
