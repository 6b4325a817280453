// All-pairs n-body: every work-item reads every position.
__kernel void nbody(__global const float4* pos, __global float4* acc, int n) {
  int i = get_global_id(0);
  float4 p = pos[i];
  float3 a = (float3)(0.0f);
  for (int j = 0; j < n; j++) {
    float4 q = pos[j];
    float3 d = q.xyz - p.xyz;
    float r2 = dot(d, d) + 0.01f;
    a += q.w * d / (r2 * sqrt(r2));
  }
  acc[i] = (float4)(a, 0.0f);
}
