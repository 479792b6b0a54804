//! The GPUs the lab knows.

use serde::{Deserialize, Serialize};

pub(super) const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// A GPU as the step-time and memory models see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuSpec {
    /// Catalogue id (lower case), or any name for an inline custom GPU.
    pub id: String,
    /// Human-readable name.
    #[serde(default)]
    pub name: String,
    /// Memory capacity in bytes.
    pub hbm_bytes: f64,
    /// Memory bandwidth in bytes/s.
    pub mem_bandwidth: f64,
    /// Dense bf16/fp16 tensor FLOP/s.
    pub bf16_flops: f64,
    /// Dense fp8 tensor FLOP/s; `None` when the part has no fp8 tensor cores.
    #[serde(default)]
    pub fp8_flops: Option<f64>,
    /// Dense fp4 tensor FLOP/s (NVFP4/MXFP4 products); `None` when the part has no fp4 tensor
    /// cores (everything before Blackwell).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fp4_flops: Option<f64>,
    /// GPU-to-GPU bandwidth in one direction, bytes/s (half the bidirectional figure).
    pub interconnect_bw: f64,
    /// Name of the link, for display.
    #[serde(default)]
    pub interconnect: String,
    /// Default price per GPU-hour in USD (a scenario may override it).
    pub usd_per_hour: f64,
}

impl GpuSpec {
    fn with_fp4(mut self, tflops: f64) -> GpuSpec {
        self.fp4_flops = Some(tflops * 1e12);
        self
    }
    /// An AMD Instinct part (by its catalogue id or name).
    pub fn is_amd(&self) -> bool {
        self.id.starts_with("mi") || self.name.starts_with("AMD")
    }
    /// Whether the GPUs of a node reach each other over a direct link (NVLink, AMD Infinity
    /// Fabric) on which custom all-reduce kernels read peer memory; otherwise (PCIe, or an inline
    /// GPU naming no link) tensor parallelism reduces over a ring.
    pub fn direct_link(&self) -> bool {
        self.interconnect.starts_with("NVLink") || self.interconnect.starts_with("Infinity Fabric")
    }
}

#[allow(clippy::too_many_arguments)]
fn gpu(
    id: &str,
    name: &str,
    gb: f64,
    tbps: f64,
    bf16_tf: f64,
    fp8_tf: Option<f64>,
    link_bidir_gbps: f64,
    link: &str,
    usd: f64,
) -> GpuSpec {
    GpuSpec {
        id: id.into(),
        name: name.into(),
        hbm_bytes: gb * GIB,
        mem_bandwidth: tbps * 1e12,
        bf16_flops: bf16_tf * 1e12,
        fp8_flops: fp8_tf.map(|t| t * 1e12),
        fp4_flops: None,
        interconnect_bw: link_bidir_gbps * 1e9 / 2.0,
        interconnect: link.into(),
        usd_per_hour: usd,
    }
}

/// The GPUs the lab knows, in display order.
pub fn gpus() -> Vec<GpuSpec> {
    vec![
        gpu("a100-40gb", "NVIDIA A100 40GB SXM4", 40.0, 1.555, 312.0, None, 600.0, "NVLink3", 1.48),
        gpu("a100-80gb", "NVIDIA A100 80GB SXM4", 80.0, 2.039, 312.0, None, 600.0, "NVLink3", 2.45),
        gpu("h100-sxm", "NVIDIA H100 SXM5 80GB", 80.0, 3.35, 989.4, Some(1978.9), 900.0, "NVLink4", 2.69),
        gpu("h200", "NVIDIA H200 SXM 141GB", 141.0, 4.8, 989.4, Some(1978.9), 900.0, "NVLink4", 3.59),
        gpu("l4", "NVIDIA L4 24GB", 24.0, 0.3, 121.0, Some(242.0), 64.0, "PCIe Gen4 x16", 0.78),
        gpu("l40s", "NVIDIA L40S 48GB", 48.0, 0.864, 362.05, Some(733.0), 64.0, "PCIe Gen4 x16", 1.40),
        gpu("mi300x", "AMD Instinct MI300X 192GB", 192.0, 5.3, 1307.4, Some(2614.9), 896.0, "Infinity Fabric", 1.85),
        gpu("rtx-4090", "NVIDIA GeForce RTX 4090 24GB", 24.0, 1.008, 165.15, Some(330.3), 64.0, "PCIe Gen4 x16", 0.60),
        gpu(
            "rtx-pro-6000",
            "NVIDIA RTX PRO 6000 Blackwell 96GB (Server)",
            96.0,
            1.597,
            503.8,
            Some(1007.6),
            128.0,
            "PCIe Gen5 x16",
            1.79,
        )
        .with_fp4(2000.0),
        gpu("b200", "NVIDIA B200 180GB (HGX, 1000 W)", 180.0, 8.0, 2250.0, Some(4500.0), 1800.0, "NVLink5", 5.98)
            .with_fp4(9000.0),
        gpu(
            "b300",
            "NVIDIA B300 288GB (HGX, Blackwell Ultra)",
            288.0,
            8.0,
            2250.0,
            Some(4500.0),
            1800.0,
            "NVLink5",
            5.98,
        )
        .with_fp4(13125.0),
        gpu(
            "gb200",
            "NVIDIA GB200 (one Blackwell GPU of NVL72) 186GB",
            186.0,
            8.0,
            2500.0,
            Some(5000.0),
            1800.0,
            "NVLink5",
            4.54,
        )
        .with_fp4(10000.0),
        gpu("h20", "NVIDIA H20 96GB", 96.0, 4.0, 148.0, Some(296.0), 900.0, "NVLink4", 2.45),
        gpu("mi325x", "AMD Instinct MI325X 256GB", 256.0, 6.0, 1307.4, Some(2614.9), 896.0, "Infinity Fabric", 2.00),
    ]
}
