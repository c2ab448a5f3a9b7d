// SPDX-License-Identifier: MIT
#pragma once

#include <QMatrix4x4>
#include <QPointF>
#include <QVector3D>

namespace cs::ui {

/// A camera that orbits a target point: yaw about the world's y axis, pitch above the xz plane,
/// at a distance, with a perspective projection. Plain math, no GL, so tests can check it.
/// With yaw = pitch = 0 the camera looks down -z: x to the right, y up.
/// @code
/// OrbitCamera cam;
/// cam.fit(centre, radius, aspect);
/// QMatrix4x4 mvp = cam.projection(aspect) * cam.view();
/// @endcode
class OrbitCamera {
public:
    /// Vertical field of view in degrees.
    static constexpr float kFovY = 40.0f;
    /// Pitch stays inside ±kMaxPitch so that the view never flips over the pole.
    static constexpr float kMaxPitch = 89.0f;

    QVector3D target() const { return m_target; }
    float distance() const { return m_distance; }
    float yaw() const { return m_yaw; }      ///< degrees
    float pitch() const { return m_pitch; }  ///< degrees
    /// The data's bounding sphere; bounds zoom and places the clip planes.
    QVector3D sceneCentre() const { return m_sceneCentre; }
    float sceneRadius() const { return m_sceneRadius; }

    void setTarget(const QVector3D& t) { m_target = t; }
    void setDistance(float d);
    /// Sets the orientation; pitch is clamped, yaw wrapped to (-180, 180].
    void setAngles(float yawDegrees, float pitchDegrees);
    void setScene(const QVector3D& centre, float radius);

    /// Eye position in world space.
    QVector3D eye() const;
    /// Unit vectors of the camera frame in world space.
    QVector3D forward() const;
    QVector3D right() const;
    QVector3D up() const;

    QMatrix4x4 view() const;
    /// Perspective projection for a viewport of this width / height.
    QMatrix4x4 projection(float aspect) const;

    /// Turns the camera around the target by these angles (degrees).
    void orbit(float dYaw, float dPitch);
    /// Moves target and eye along the view plane by a drag of (dx, dy) pixels in a viewport
    /// viewportHeight pixels high, so that the scene follows the cursor.
    void pan(float dx, float dy, float viewportHeight);
    /// Multiplies the distance by factor (< 1 zooms in). The point under ndc (the cursor in
    /// normalised device coordinates, y up) on the target's plane stays where it is on screen.
    void zoom(float factor, QPointF ndc = {}, float aspect = 1.0f);
    /// Centres the sphere (centre, radius) and moves back until it fills the view.
    void fit(const QVector3D& centre, float radius, float aspect);
    /// Centres the box [lo, hi] and moves back, keeping the orientation, until its corners
    /// just fit (tighter than the bounding sphere when the view looks along an axis).
    void fitBox(const QVector3D& lo, const QVector3D& hi, float aspect);
    /// The default orientation (three-quarter view for 3-D data, straight on for planar data),
    /// then fitBox().
    void reset(const QVector3D& lo, const QVector3D& hi, float aspect, bool planar);

    /// Default angles of reset().
    static constexpr float kDefaultYaw = 30.0f;
    static constexpr float kDefaultPitch = 20.0f;

private:
    QVector3D m_target;
    float m_distance = 3.0f;
    float m_yaw = kDefaultYaw;
    float m_pitch = kDefaultPitch;
    QVector3D m_sceneCentre;
    float m_sceneRadius = 1.0f;
};

}  // namespace cs::ui
