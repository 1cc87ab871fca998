#pragma once
// A small hand-made MD5 character (mesh and animation text) whose every value the MD5 loader
// tests compute by hand; also a valid .md5mesh/.md5anim pair for the daemon's file tests.

namespace animtest {

// A 3-joint chain in Doom's Z-up model space:
//   root at the origin, identity orientation (x y z = 0, so w = -1);
//   mid  at (0 0 2), 90 degrees about +Z (stored as -q: x y z = (0 0 -0.7071), w = -0.7071);
//   tip  at (1 0 2), same orientation as mid.
// Mesh 0 "skin": one triangle over three vertices; vertex 2 has two weights.
// Mesh 1 "cap": one vertex with four weights, two of them on the same joint.
inline const char* kChainMesh = R"(MD5Version 10
commandline "made by hand"

numJoints 3
numMeshes 2

joints {
	"root"	-1 ( 0 0 0 ) ( 0 0 0 )		// no parent
	"mid"	0 ( 0 0 2 ) ( 0 0 -0.70710678 )		// root
	"tip"	1 ( 1 0 2 ) ( 0 0 -0.70710678 )		// mid
}

mesh {
	shader "skin"
	numverts 3
	vert 0 ( 0.0 0.0 ) 0 1
	vert 1 ( 1.0 0.0 ) 1 1
	vert 2 ( 0.5 1.0 ) 2 2
	numtris 1
	tri 0 0 1 2
	numweights 4
	weight 0 0 1.0 ( 1 0 0 )
	weight 1 1 1.0 ( 1 0 0 )
	weight 2 1 0.25 ( 0 0 0 )
	weight 3 2 0.75 ( 0 0 1 )
}

mesh {
	shader "cap"
	numverts 1
	vert 0 ( 0 0 ) 0 4
	numtris 0
	numweights 4
	weight 0 0 0.1 ( 0 0 0 )
	weight 1 2 0.3 ( 0 0 0 )
	weight 2 0 0.2 ( 0 0 0 )
	weight 3 1 0.4 ( 0 0 0 )
}
)";

// Two frames at 10 fps: root translates (0 0 0) -> (2 0 4) (flags Tx Ty Tz), mid's Qz goes
// from -0.7071 (90 degrees about Z) to 0 (identity); tip is never animated (flags 0) and its
// baseframe is its rest pose.
inline const char* kChainAnim = R"(MD5Version 10
commandline ""

numFrames 2
numJoints 3
frameRate 10
numAnimatedComponents 4

hierarchy {
	"root"	-1 7 0	//
	"mid"	0 32 3	// root
	"tip"	1 0 4	// mid
}

bounds {
	( -1 -1 -1 ) ( 1 1 1 )
	( -1 -1 -1 ) ( 3 1 5 )
}

baseframe {
	( 0 0 0 ) ( 0 0 0 )
	( 0 0 2 ) ( 0 0 -0.70710678 )
	( 0 -1 0 ) ( 0 0 0 )
}

frame 0 {
	0 0 0 -0.70710678
}

frame 1 {
	2 0 4 0
}
)";

}  // namespace animtest
