#pragma once
// The input of the structure-aware `gltf_json` fuzz target (gltf_json_fuzz.cpp): a small
// program that picks one of a few base glTF documents and edits it. Its parts:
//   gltf_program_format.h  the byte layout of a program (every byte string is one), decode
//   gltf_program_tree.h    the document tree the operations edit
//   gltf_program_bases.h   the base documents and the tables operations index
//   gltf_program_apply.h   applying the operations
//   gltf_program_render.h  rendering the tree as .gltf or .glb, with its shape
//   gltf_program_mutate.h  the custom mutator's structured edits
#include "gltf_program_apply.h"
#include "gltf_program_bases.h"
#include "gltf_program_format.h"
#include "gltf_program_mutate.h"
#include "gltf_program_render.h"
#include "gltf_program_tree.h"
